/**
 * The commands that reach into the guest over the portforward subresource: port-forward, and ssh and scp
 * (KubeVirt virtctl's wrapped mode: the system's client with this CLI as its ProxyCommand). Names, flags,
 * defaults and help as in KubeVirt v1.6.2.
 */
import { Option, type Command } from 'commander';
import { guestPort } from './flag-parsers.ts';
import { GoFlagsCommand } from './go-flags.ts';
import { parseForwardArgs } from './portforward/forward-args.ts';
import { runPortForward } from './portforward/run-port-forward.ts';
import type { Session } from './session.ts';
import { runScp, runSsh, type ClientFlags, type ScpFlags } from './ssh/run-ssh.ts';

const PORT_FORWARD_HELP = `
The target argument supports the syntax type/name[/namespace] with /namespace as optional field.
Kind accepts any of vmi, vmis, vm, vms, virtualmachineinstance, virtualmachine, virtualmachineinstances, virtualmachines.

A dot in target without specifying a namespace activates legacy parsing of name and namespace using
the old type/name.namespace syntax (a warning is printed).

The port argument supports the syntax protocol/localPort:targetPort with protocol/ and :targetPort as optional
fields. Protocol supports TCP (default) and UDP. Local port 0 picks a free port (the line printed names it).

Examples:
  virtctl-ts port-forward vmi/testvmi 8080
  virtctl-ts port-forward vmi/testvmi 8080:9090
  virtctl-ts port-forward vmi/testvmi/mynamespace udp/8080:9090
  virtctl-ts port-forward vm/testvm/mynamespace 8080

Port-forwards go through the Kubernetes API server as websocket streams; every byte adds load to the control
plane. For continuous traffic-intensive connections, use a Kubernetes Service.`;

const SSH_HELP = `
Runs the system's ssh with this CLI as its ProxyCommand (port-forward --stdio=true); the host ssh sees is
kind.name.namespace, e.g. vmi.testvmi.mynamespace, and its host keys are kept under that name.

Examples:
  virtctl-ts ssh jdoe@vmi/testvmi -i ~/.ssh/id_ed25519
  virtctl-ts ssh jdoe@vm/testvm/mynamespace -c 'uname -a'
  virtctl-ts ssh -n mynamespace -l jdoe vmi/testvmi -t '-o StrictHostKeyChecking=no'`;

const SCP_HELP = `
Runs the system's scp with this CLI as its ProxyCommand; exactly one location is remote,
[user@]type/name[/namespace]:path.

Examples:
  virtctl-ts scp myfile.bin jdoe@vmi/testvmi:myfile.bin
  virtctl-ts scp --recursive ~/mydir/ jdoe@vmi/testvmi:./mydir
  virtctl-ts scp jdoe@vm/testvm/mynamespace:myfile.bin ~/myfile.bin`;

interface PortForwardFlags {
  readonly stdio: boolean;
  readonly address: string;
}

const collect = (value: string, previous: readonly string[]): string[] => [...previous, value];

/** A GoFlagsCommand under root with root's output and error settings. */
function goCommand(root: Command, name: string): Command {
  const cmd = new GoFlagsCommand(name);
  cmd.copyInheritedSettings(root);
  root.addCommand(cmd);
  return cmd;
}

/** The flags ssh and scp share (KubeVirt's ssh.AddCommandlineArgs). */
function addClientFlags(cmd: Command): Command {
  return cmd
    .option(
      '-l, --username <user>',
      'the user to log in as; user@ in the target wins (default: $USER, else $USERNAME, else $LOGNAME)',
    )
    .option(
      '-i, --identity-file <path>',
      'private key to authenticate with, passed as ssh -i (default: what ssh uses, e.g. ~/.ssh/id_rsa or the agent)',
    )
    .option(
      '--known-hosts <path>',
      "known_hosts file for the guest's host key, passed as -o UserKnownHostsFile (default: ssh's own)",
    )
    .option('-p, --port <port>', 'the port sshd listens on in the guest', guestPort, 22)
    .option(
      '-t, --local-ssh-opts <option>',
      'an extra argument for the local ssh/scp, e.g. "-o StrictHostKeyChecking=no" (repeatable)',
      collect,
      [],
    )
    .addOption(
      new Option(
        '--local-ssh',
        'use the ssh/scp client of this system (the only one virtctl-ts has; --local-ssh=false is refused)',
      ).default(true),
    );
}

export function addForwardCommands(root: Command, s: Session): void {
  goCommand(root, 'port-forward')
    .summary('Forward local ports to a virtualmachine or virtualmachineinstance.')
    .description('Forward local ports to a virtualmachine or virtualmachineinstance.')
    .argument('<target>', 'type/name[/namespace], e.g. vmi/testvmi')
    .argument('<ports...>', 'one or more [protocol/]localPort[:targetPort], e.g. 8080:80 or udp/5353:53')
    .addOption(
      new Option(
        '--stdio',
        'forward the tunnel to stdout/stdin (--stdio=true); only works with a single port',
      ).default(false),
    )
    .option('--address <ip>', 'the address the local ports are opened on', '127.0.0.1')
    .addHelpText('after', PORT_FORWARD_HELP)
    .action((target: string, ports: string[], o: PortForwardFlags, cmd: Command) => {
      const parsed = parseForwardArgs([target, ...ports], o.stdio);
      return runPortForward({
        client: s.client(cmd),
        args: parsed,
        address: o.address,
        stdio: o.stdio,
        io: s.io,
        clock: s.clock,
      });
    });
  addClientFlags(goCommand(root, 'ssh'))
    .description('Open a SSH connection to a virtual machine instance.')
    .argument('<target>', '[user@]type/name[/namespace], e.g. jdoe@vmi/testvmi')
    .option('-c, --command <command>', "a command to execute in the VM, e.g. 'ls /'")
    .addHelpText('after', SSH_HELP)
    .action((target: string, o: ClientFlags & { command?: string }, cmd: Command) =>
      runSsh(s, cmd, { target, flags: o }),
    );
  addClientFlags(goCommand(root, 'scp'))
    .description('SCP files from/to a virtual machine instance.')
    .argument('<source>', 'a local path, or [user@]type/name[/namespace]:path')
    .argument('<destination>', 'a local path, or [user@]type/name[/namespace]:path')
    .option('-r, --recursive', 'recursively copy entire directories')
    .option('--preserve', 'preserve modification times, access times, and modes from the original file')
    .addHelpText('after', SCP_HELP)
    .action((source: string, destination: string, o: ScpFlags, cmd: Command) =>
      runScp(s, cmd, { source, destination, flags: o }),
    );
}
