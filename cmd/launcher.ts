/**
 * `virt launcher`: one per VMI, the Cmd server driving its own libvirt/QEMU (lib/launcher). Subcommands:
 * `node-labeller` (host facts for node labels), `convert` (print a VMI's domain XML) and `probe` (a VMI's
 * guestAgentPing or exec probe, KubeVirt's virt-probe, with its flags), each loaded only when used: the
 * launcher's own memory is budgeted (KubeVirt: 100 Mi for virt-launcher) and a probe runs every period.
 */
import { Command, Option } from 'commander';
import { errorMessage } from '../lib/kernel/errors/errors.ts';
import { createLogger } from '../lib/kernel/log/log.ts';
import { runUntilSignal } from '../lib/kernel/runtime/shutdown.ts';
import { EMULATION_MODES, type EmulationMode } from '../lib/launcher/emulation/emulation.ts';
import { POD_LAYOUT } from '../lib/rpc/pod-layout.ts';
import { parsed, verbosityOption, wholeNumber } from './flags.ts';

interface LauncherFlags {
  name?: string;
  namespace?: string;
  uid?: string;
  gracePeriodSeconds: number;
  emulation: EmulationMode;
  root: string;
  qemuCapsCache?: string;
  verbosity: number;
}

const emulationOption = (): Option =>
  new Option('--emulation <mode>', 'TCG instead of KVM: auto (probe KVM), on (TCG), off (KVM)')
    .choices(EMULATION_MODES)
    .default('auto');
const capsCacheOption = (): Option =>
  new Option(
    '--qemu-caps-cache <dir>',
    "share libvirt's QEMU capability probe between launchers (local mode)",
  );

function nodeLabellerCommand(): Command {
  return new Command('node-labeller')
    .description('write host CPU models, features, machine types and TSC facts for node labels')
    .requiredOption('--output <dir>', 'where to write the facts')
    .addOption(emulationOption())
    .addOption(capsCacheOption())
    .addOption(verbosityOption())
    .action(
      async (f: { output: string; emulation: EmulationMode; qemuCapsCache?: string; verbosity: number }) => {
        const { verbosity, ...rest } = f;
        const log = createLogger({ component: 'node-labeller', verbosity });
        const { runNodeLabeller } = await import('../lib/launcher/node-labeller/run.ts');
        await runNodeLabeller({ ...rest, log });
      },
    );
}

function convertCommand(): Command {
  return new Command('convert')
    .description('print the libvirt domain XML of a VMI (debugging aid)')
    .requiredOption('--vmi <file>', 'VMI as JSON or YAML')
    .option('--emulation', 'render for TCG', false)
    .option('--arch <arch>', 'guest architecture', 'amd64')
    .action(async (f: { vmi: string; emulation: boolean; arch: string }) => {
      const { runConvert } = await import('../lib/launcher/convert-command.ts');
      try {
        process.stdout.write(await runConvert(f));
      } catch (err) {
        console.error(`virt launcher convert: ${errorMessage(err)}`);
        process.exitCode = 1;
      }
    });
}

interface ProbeCommandFlags {
  socket: string;
  domainName: string;
  command?: string;
  timeoutSeconds: number;
  guestAgentPing: boolean;
}

function probeCommand(): Command {
  return new Command('probe')
    .description("a VMI's guestAgentPing or exec probe through the launcher socket (exit 0 when it passes)")
    .option('--socket <path>', 'the launcher command socket', POD_LAYOUT.launcherSocket)
    .option('--domainName <name>', 'the domain, <namespace>_<name>', '')
    .option('--command <program>', 'the program to run in the guest; its arguments follow --')
    .addOption(parsed('--timeoutSeconds <n>', 'seconds the guest command may take', wholeNumber, 1))
    .option('--guestAgentPing', 'ping the guest agent instead of running a command', false)
    .argument('[args...]', 'arguments of --command')
    .action(async (args: string[], f: ProbeCommandFlags) => {
      const { runProbe } = await import('../lib/launcher/probe-command.ts');
      const r = await runProbe({ ...f, args });
      if (r.stdout !== undefined) console.log(r.stdout);
      if (r.reason !== undefined) console.error(`virt launcher probe: ${r.reason}`);
      // The gRPC channel may still hold the event loop: the answer is given, so leave now.
      process.exit(r.exitCode);
    });
}

export function launcherCommand(): Command {
  const cmd = new Command('launcher')
    .enablePositionalOptions()
    .description('one per VMI: gRPC cmd-server driving libvirt/QEMU')
    .option('--name <name>', 'VMI name')
    .option('--namespace <ns>', 'VMI namespace')
    .option('--uid <uid>', 'VMI uid')
    .addOption(parsed('--grace-period-seconds <n>', 'graceful shutdown period', wholeNumber, 30))
    .addOption(emulationOption())
    .option('--root <dir>', 'prefix for every host path (local mode, tests)', '/')
    .addOption(capsCacheOption())
    .addOption(verbosityOption())
    .action(async (f: LauncherFlags) => {
      const { name, namespace, uid } = f;
      if (name === undefined || namespace === undefined || uid === undefined) {
        cmd.error('--name, --namespace and --uid are required');
        return;
      }
      const { verbosity, ...rest } = f;
      const log = createLogger({ component: 'virt-launcher', verbosity });
      const graceMs = (f.gracePeriodSeconds + 60) * 1000;
      const opts = { ...rest, name, namespace, uid, log };
      const { runLauncherRole } = await import('../lib/launcher/role.ts');
      await runUntilSignal((signal) => runLauncherRole(opts, signal), { log, graceMs });
    });
  cmd.addCommand(nodeLabellerCommand());
  cmd.addCommand(convertCommand());
  cmd.addCommand(probeCommand());
  return cmd;
}
