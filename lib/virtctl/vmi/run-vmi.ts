/**
 * The VMI commands: pause/unpause (`vm <name>` reads the VM first, as virtctl does, and says why a VM without
 * a VMI cannot be paused), freeze, unfreeze, soft-reboot, and the guest agent reads printed as JSON.
 */
import type { Command } from 'commander';
import { StatusError, newStatus } from '../../kernel/errors/errors.ts';
import { DRY_RUN_LINE, type ApiCall } from '../api-call.ts';
import { CommandFailed, RequestFailed } from '../errors/failures.ts';
import { scheduledLine } from '../lifecycle/lifecycle.ts';
import type { Session } from '../session.ts';
import {
  bareCall,
  freezeCall,
  guestQuery,
  guestQueryOutput,
  parseTargetKind,
  pauseCall,
  type GuestQuery,
} from './vmi-commands.ts';

async function send(s: Session, cmd: Command, call: ApiCall, prefix: string): Promise<unknown> {
  try {
    return await s.client(cmd).call(call);
  } catch (err) {
    throw new CommandFailed(prefix, err);
  }
}

/** The VM behind `pause vm <name>`: it must exist, and for pause it must be set to run. */
async function checkVm(s: Session, cmd: Command, verb: 'pause' | 'unpause', name: string): Promise<void> {
  const prefix = `Error getting VirtualMachine ${name}`;
  const client = s.client(cmd);
  const vm = await s
    .reader(cmd)
    .vm(name)
    .catch((err: unknown) => {
      throw new CommandFailed(prefix, err);
    });
  if (vm === undefined) {
    const path = `/apis/kubevirt.io/v1/namespaces/${client.namespace}/virtualmachines/${name}`;
    const missing = new StatusError(newStatus(404, `virtualmachines.kubevirt.io "${name}" not found`));
    throw new CommandFailed(prefix, new RequestFailed({ method: 'GET', path }, client.server, missing));
  }
  if (verb === 'pause' && vm.spec.runStrategy === 'Halted') {
    throw new Error(`Error pausing VirtualMachineInstance ${name}. VirtualMachine ${name} is not set to run`);
  }
}

export async function runPause(
  s: Session,
  cmd: Command,
  args: { verb: 'pause' | 'unpause'; kind: string; name: string },
): Promise<void> {
  const { verb, name } = args;
  const kind = parseTargetKind(args.kind);
  const dryRun = cmd.opts<{ dryRun?: boolean }>().dryRun;
  const client = s.client(cmd);
  if (kind === 'vm') await checkVm(s, cmd, verb, name);
  if (dryRun === true) s.out(DRY_RUN_LINE);
  const call = pauseCall(verb, { namespace: client.namespace, name }, dryRun);
  await send(
    s,
    cmd,
    call,
    `Error ${verb === 'pause' ? 'pausing' : 'unpausing'} VirtualMachineInstance ${name}`,
  );
  s.out(scheduledLine('VMI', name, verb));
}

export async function runFreeze(s: Session, cmd: Command, name: string): Promise<void> {
  const { unfreezeTimeout } = cmd.opts<{ unfreezeTimeout: string }>();
  freezeCall({ namespace: '', name }, unfreezeTimeout); // checks the flag before the kubeconfig is read
  const call = freezeCall({ namespace: s.client(cmd).namespace, name }, unfreezeTimeout);
  await send(s, cmd, call, `Error freezing VirtualMachineInstance ${name}`);
  s.out(scheduledLine('VMI', name, 'freeze'));
}

export async function runBare(
  s: Session,
  cmd: Command,
  sub: 'unfreeze' | 'softreboot',
  name: string,
): Promise<void> {
  const call = bareCall(sub, { namespace: s.client(cmd).namespace, name });
  const words = sub === 'unfreeze' ? ['unfreezing', 'unfreeze'] : ['soft rebooting', 'soft-reboot'];
  await send(s, cmd, call, `Error ${words[0] ?? sub} VirtualMachineInstance ${name}`);
  s.out(scheduledLine('VMI', name, words[1] ?? sub));
}

export async function runGuestQuery(
  s: Session,
  cmd: Command,
  query: GuestQuery,
  name: string,
): Promise<void> {
  const q = guestQuery(query, { namespace: s.client(cmd).namespace, name });
  s.io.stdout.write(guestQueryOutput(await send(s, cmd, q.call, q.errorPrefix)));
}
