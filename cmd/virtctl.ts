/**
 * virtctl-ts: the CLI a person runs from a laptop with a kubeconfig. Commands whose implementation has not
 * landed refuse to run (exit 2) and say so.
 */
import { Command } from 'commander';
import { versionLine } from '../lib/version/version.ts';
import { NOT_IMPLEMENTED_EXIT } from './roles.ts';

const COMMANDS: ReadonlyArray<readonly [string, string]> = [
  ['start <vm>', 'start a virtual machine'],
  ['stop <vm>', 'stop a virtual machine'],
  ['restart <vm>', 'restart a virtual machine'],
  ['console <vmi>', 'connect to the serial console'],
  ['vnc <vmi>', 'open a VNC connection'],
  ['port-forward <vmi> <ports...>', 'forward local ports to the guest'],
  ['addvolume <vm>', 'hotplug a volume'],
  ['removevolume <vm>', 'unplug a hotplugged volume'],
  ['freeze <vmi>', 'freeze guest filesystems'],
  ['unfreeze <vmi>', 'thaw guest filesystems'],
];

const program = new Command('virtctl-ts')
  .description('control KubeVirt virtual machines through the Kubernetes API')
  .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, ~/.kube/config)')
  .option('-n, --namespace <ns>', 'namespace of the object')
  .showHelpAfterError('(run `virtctl-ts --help` for the commands)')
  .exitOverride((err) => process.exit(err.exitCode));

program
  .command('version')
  .description('print the client version and git commit')
  .action(() => {
    console.log(`virtctl-ts ${versionLine()}`);
  });

for (const [usage, description] of COMMANDS) {
  const name = usage.split(' ')[0] ?? usage;
  program
    .command(usage)
    .description(description)
    .action(() => {
      console.error(`virtctl-ts ${name} is not implemented yet`);
      process.exit(NOT_IMPLEMENTED_EXIT);
    });
}

await program.parseAsync();
