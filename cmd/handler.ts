/** `virt handler`: the node agent (flags → HandlerRoleOptions → runHandlerRole until SIGTERM). */
import { join } from 'node:path';
import { Command } from 'commander';
import { addKubeFlags, kubeFlagsToConfigOptions, loadRestConfig } from '../lib/kernel/kube/index.ts';
import type { KubeFlagValues } from '../lib/kernel/kube/index.ts';
import { createLogger } from '../lib/kernel/log/log.ts';
import { runUntilSignal } from '../lib/kernel/runtime/shutdown.ts';
import { runHandlerRole, type HandlerRoleOptions } from '../lib/handler/role.ts';
import { intIn, parsed, port, verbosityOption } from './flags.ts';

interface HandlerFlags extends KubeFlagValues {
  nodeName?: string;
  root: string;
  kubeletPodsDir?: string;
  nodeLabellerDir?: string;
  workers: number;
  port: number;
  verbosity: number;
}

function roleOptions(f: HandlerFlags, node: string): Omit<HandlerRoleOptions, 'log'> {
  return {
    config: loadRestConfig(kubeFlagsToConfigOptions(f, { userAgent: 'kubevirt-ts/handler' })),
    node,
    root: f.root,
    kubeletPodsDir: f.kubeletPodsDir ?? join(f.root, 'var/lib/kubelet/pods'),
    labellerDir: f.nodeLabellerDir ?? join(f.root, 'var/lib/kubevirt-node-labeller'),
    workers: f.workers,
    healthPort: f.port,
  };
}

export function handlerCommand(): Command {
  const cmd = new Command('handler').description(
    'per-node VMI sync with launchers, node labels and heartbeat',
  );
  addKubeFlags(cmd)
    .option('--node-name <name>', 'this node (default: $NODE_NAME)')
    .option('--root <dir>', 'prefix for every host path (local mode, tests)', '/')
    .option('--kubelet-pods-dir <dir>', "the kubelet's pods dir (default: <root>/var/lib/kubelet/pods)")
    .option(
      '--node-labeller-dir <dir>',
      "the node-labeller's output (default: <root>/var/lib/kubevirt-node-labeller)",
    )
    .addOption(parsed('--workers <n>', 'VMIs synced at once', intIn(1, 100), 3))
    .addOption(parsed('--port <port>', '/metrics, /healthz, /readyz port', port, 4100))
    .addOption(verbosityOption())
    .action(async (flags: HandlerFlags) => {
      const node = flags.nodeName ?? process.env['NODE_NAME'] ?? '';
      if (node === '') {
        cmd.error('--node-name (or $NODE_NAME) must name the node this handler runs on');
        return;
      }
      const log = createLogger({ component: 'virt-handler', verbosity: flags.verbosity });
      const opts = roleOptions(flags, node);
      await runUntilSignal((signal) => runHandlerRole({ ...opts, log }, signal), { log });
    });
  return cmd;
}
