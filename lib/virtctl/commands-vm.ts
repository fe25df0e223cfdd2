/** The VM commands: start, stop, restart, migrate, migrate-cancel, addvolume, removevolume (virtctl's flag names). */
import { Option, type Command } from 'commander';
import type { Session } from './session.ts';
import { runLifecycle } from './lifecycle/run-lifecycle.ts';
import { runAddVolume, runRemoveVolume } from './volumes/run-volumes.ts';
import { DRY_RUN_HELP, wholeNumber } from './flag-parsers.ts';
import { nodeSelectorFlag } from './migrate/migrate.ts';
import { runMigrate, runMigrateCancel } from './migrate/run-migrate.ts';

const WAIT_TIMEOUT = 'how long --wait waits, a Go duration (90s, 5m)';

export function addLifecycleCommands(root: Command, s: Session): void {
  const add = (verb: 'start' | 'stop' | 'restart', description: string): Command =>
    root
      .command(verb)
      .description(description)
      .argument('<vm>', 'the VirtualMachine')
      .option('--dry-run', DRY_RUN_HELP)
      .option('--wait', verb === 'stop' ? 'wait until the VMI is gone' : 'wait until the VMI is Running')
      .option('--timeout <duration>', WAIT_TIMEOUT, '5m')
      .action((vm: string, _o: unknown, cmd: Command) => runLifecycle(s, cmd, verb, vm));
  add('start', 'Start a virtual machine.').option('--paused', 'start the virtual machine in paused state');
  const forced = (cmd: Command): Command =>
    cmd
      .option('--force', 'with --grace-period 0: remove the VMI pod at once, bypassing graceful deletion')
      .option(
        '--grace-period <seconds>',
        'seconds the VMI gets to terminate; only 0 is supported, and only with --force',
        wholeNumber,
      );
  forced(add('stop', 'Stop a virtual machine.'));
  forced(add('restart', 'Restart a virtual machine.'));
}

export function addMigrateCommands(root: Command, s: Session): void {
  root
    .command('migrate')
    .description('Migrate a virtual machine.')
    .argument('<vm>', 'the VirtualMachine')
    .option(
      '--addedNodeSelector <key=value,...>',
      'an additional node selector for this migration; it can only restrict the constraints the VM sets',
      nodeSelectorFlag,
    )
    .option('--dry-run', DRY_RUN_HELP)
    .action((vm: string, _o: unknown, cmd: Command) => runMigrate(s, cmd, vm));
  root
    .command('migrate-cancel')
    .description('Cancel migration of a virtual machine.')
    .argument('<vm>', 'the VirtualMachine')
    .action((vm: string, _o: unknown, cmd: Command) => runMigrateCancel(s, cmd, vm));
}

export function addVolumeCommands(root: Command, s: Session): void {
  const persist = new Option('--persist', '[deprecated] has no effect (the VM is always tried first)');
  root
    .command('addvolume')
    .description('add a volume to a running VM (to the VM, or to the VMI when there is no VM)')
    .argument('<vm>', 'the VirtualMachine or, without one, the VirtualMachineInstance')
    .requiredOption('--volume-name <name>', 'name of the volume source, either DataVolume or PVC')
    .option('--disk-name <name>', 'name used in the disk/volume section of spec (default: the volume name)')
    .option('--serial <serial>', 'serial number of the disk (default: the disk name)')
    .addOption(new Option('--cache <mode>', 'disk cache mode').choices(['none', 'writethrough', 'writeback']))
    .option('--disk-type <type>', 'disk type to hotplug: disk or lun', 'disk')
    .option('--bus <bus>', 'disk bus: scsi or virtio (lun: scsi only)', 'scsi')
    .addOption(persist)
    .option('--dry-run', DRY_RUN_HELP)
    .action((vm: string, _o: unknown, cmd: Command) => runAddVolume(s, cmd, vm));
  root
    .command('removevolume')
    .description('remove a volume from a running VM (from the VM, or from the VMI when there is no VM)')
    .argument('<vm>', 'the VirtualMachine or, without one, the VirtualMachineInstance')
    .requiredOption('--volume-name <name>', 'name used in volumes section of spec')
    .addOption(new Option('--persist', '[deprecated] has no effect (the VM is always tried first)'))
    .option('--dry-run', DRY_RUN_HELP)
    .action((vm: string, _o: unknown, cmd: Command) => runRemoveVolume(s, cmd, vm));
}
