/** The VMI commands: console, vnc, pause, unpause, freeze, unfreeze, soft-reboot, guest reads. */
import { Argument, type Command } from 'commander';
import { runConsole } from './console/console-session.ts';
import { DRY_RUN_HELP, port, wholeNumber } from './flag-parsers.ts';
import { runBare, runFreeze, runGuestQuery, runPause } from './vmi/run-vmi.ts';
import type { Session } from './session.ts';
import { DEFAULT_UNFREEZE_TIMEOUT, type GuestQuery } from './vmi/vmi-commands.ts';
import { runVncProxy } from './console/vnc-proxy.ts';

interface VncFlags {
  readonly proxyOnly?: boolean;
  readonly port: number;
  readonly address: string;
  readonly preserveSession?: boolean;
}

export function addStreamCommands(root: Command, s: Session): void {
  root
    .command('console')
    .description('Connect to a console of a virtual machine instance.')
    .argument('<vmi>', 'the VirtualMachineInstance')
    .option(
      '--timeout <minutes>',
      'minutes to wait for the virtual machine instance to be ready',
      wholeNumber,
      5,
    )
    .action((vmi: string, o: { timeout: number }, cmd: Command) =>
      runConsole({
        client: s.client(cmd),
        name: vmi,
        timeoutMs: o.timeout * 60_000,
        io: s.io,
        clock: s.clock,
      }),
    );
  root
    .command('vnc')
    .description(
      'Open a vnc connection to a virtual machine instance: a local proxy (no viewer is launched).',
    )
    .argument('<vmi>', 'the VirtualMachineInstance')
    .option(
      '--proxy-only',
      'run only the proxy and print the port viewers connect to (what vnc does here anyway)',
    )
    .option('--port <port>', 'local port to listen on; 0 takes a free one', port, 0)
    .option('--address <ip>', 'local address to listen on (only with --proxy-only)', '127.0.0.1')
    .option('--preserve-session', 'keep an existing VNC session instead of taking it over')
    .action((vmi: string, o: VncFlags, cmd: Command) => {
      const proxyOnly = o.proxyOnly === true;
      // virtctl listens on 127.0.0.1 unless --proxy-only (a viewer it launches connects there)
      return runVncProxy({
        client: s.client(cmd),
        name: vmi,
        address: proxyOnly ? o.address : '127.0.0.1',
        port: o.port,
        proxyOnly,
        preserveSession: o.preserveSession === true,
        io: s.io,
      });
    });
}

const KINDS = {
  name: '<vm|vmi>',
  description: 'the resource type: vm (virtualmachine) or vmi (virtualmachineinstance)',
};

export function addVmiCommands(root: Command, s: Session): void {
  for (const verb of ['pause', 'unpause'] as const) {
    root
      .command(verb)
      .description(verb === 'pause' ? 'Pause a virtual machine' : 'Unpause a virtual machine')
      // The choices are for help and completion; any case and plural is accepted (parseTargetKind).
      .addArgument(new Argument(KINDS.name, KINDS.description).choices(['vm', 'vmi']).argParser((v) => v))
      .argument('<name>', 'the VM or VMI')
      .option('--dry-run', DRY_RUN_HELP)
      .action((kind: string, name: string, _o: unknown, cmd: Command) =>
        runPause(s, cmd, { verb, kind, name }),
      );
  }
  root
    .command('freeze')
    .description('Freeze the guest filesystems of a virtual machine instance (guest agent).')
    .argument('<vmi>', 'the VirtualMachineInstance')
    .option(
      '--unfreeze-timeout <duration>',
      'thaw the filesystems after this long anyway, a Go duration',
      DEFAULT_UNFREEZE_TIMEOUT,
    )
    .action((vmi: string, _o: unknown, cmd: Command) => runFreeze(s, cmd, vmi));
  root
    .command('unfreeze')
    .description('Thaw the guest filesystems of a virtual machine instance.')
    .argument('<vmi>', 'the VirtualMachineInstance')
    .action((vmi: string, _o: unknown, cmd: Command) => runBare(s, cmd, 'unfreeze', vmi));
  root
    .command('soft-reboot')
    .alias('softreboot')
    .description('Soft reboot a virtual machine instance')
    .argument('<vmi>', 'the VirtualMachineInstance')
    .action((vmi: string, _o: unknown, cmd: Command) => runBare(s, cmd, 'softreboot', vmi));
  const queries: ReadonlyArray<readonly [GuestQuery, string]> = [
    ['guestosinfo', 'Return guest agent info about operating system.'],
    ['userlist', 'Return full list of logged in users on the guest machine.'],
    ['fslist', 'Return full list of filesystems available on the guest machine.'],
  ];
  for (const [query, description] of queries) {
    root
      .command(query)
      .description(description)
      .argument('<vmi>', 'the VirtualMachineInstance')
      .action((vmi: string, _o: unknown, cmd: Command) => runGuestQuery(s, cmd, query, vmi));
  }
}
