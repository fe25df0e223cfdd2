/**
 * The lifecycle and guest-agent routes (kubevirt pkg/virt-handler/rest/lifecycle.go, tag v1.6.2): each maps to
 * one launcher Cmd RPC. A command answers 202 with no body; a query answers 200 with the guest agent's JSON
 * (user and filesystem lists wrapped as v1 lists, `{"metadata":{},"items":[...]}`). A launcher failure answers
 * KubeVirt's status for that route: 400 for freeze and unfreeze, 500 for the others, with the cmd client's
 * text. Reset and soft reboot record a Normal event, a failed freeze a Warning FreezeError.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { EventRecorder } from '../../kernel/controller/events.ts';
import type { PayloadResult, VmiCommand } from '../../rpc/index.ts';
import type { CmdResult } from '../../rpc/index.ts';
import { commandError, commandFailed, isRestError, type RestError } from './errors.ts';
import { parseFreezeBody } from '../../kubevirt/subresources/freeze-body.ts';
import type { LifecycleLauncher } from './resolve.ts';
import type { CommandRoute, QueryRoute } from './routes.ts';

export interface Answer {
  readonly status: number;
  /** A JSON body (queries), a text body (errors), or none. */
  readonly json?: unknown;
  readonly text?: string;
}

interface CommandSpec {
  /** The cmd client's name for the command in its messages. */
  readonly command: string;
  readonly rpc: VmiCommand | 'freezeVirtualMachine';
  readonly failStatus: number;
  readonly event?: { readonly reason: string; readonly message: string };
}

const COMMANDS: Readonly<Record<CommandRoute, CommandSpec>> = {
  pause: { command: 'Pause', rpc: 'pauseVirtualMachine', failStatus: 500 },
  unpause: { command: 'Unpause', rpc: 'unpauseVirtualMachine', failStatus: 500 },
  freeze: { command: 'Freeze', rpc: 'freezeVirtualMachine', failStatus: 400 },
  unfreeze: { command: 'Unfreeze', rpc: 'unfreezeVirtualMachine', failStatus: 400 },
  softreboot: {
    command: 'SoftReboot',
    rpc: 'softRebootVirtualMachine',
    failStatus: 500,
    event: { reason: 'SoftRebooted', message: 'VirtualMachineInstance soft rebooted' },
  },
  reset: {
    command: 'Reset',
    rpc: 'resetVirtualMachine',
    failStatus: 500,
    event: { reason: 'Reset', message: 'VirtualMachineInstance reset' },
  },
};

interface QuerySpec {
  readonly command: string;
  readonly call: (l: LifecycleLauncher) => Promise<PayloadResult>;
  /** How the payload is answered: as it is, or as the items of a v1 list. */
  readonly list: boolean;
}

const QUERIES: Readonly<Record<QueryRoute, QuerySpec>> = {
  guestosinfo: { command: 'GetGuestInfo', call: (l) => l.getGuestInfo(), list: false },
  userlist: { command: 'GetUsers', call: (l) => l.getUsers(), list: true },
  filesystemlist: { command: 'GetFilesystems', call: (l) => l.getFilesystems(), list: true },
};

const failure = (e: RestError): Answer => ({ status: e.status, text: e.message });

async function attempt<T extends CmdResult>(
  command: string,
  status: number,
  call: () => Promise<T>,
): Promise<T | RestError> {
  let r: T;
  try {
    r = await call();
  } catch (err) {
    return commandError(command, err, status);
  }
  return r.success ? r : commandFailed(command, r, status);
}

export interface CommandRequest {
  readonly route: CommandRoute;
  readonly vmi: VirtualMachineInstance;
  readonly launcher: LifecycleLauncher;
  /** The request body (only freeze reads it). */
  readonly body: string;
  readonly recorder?: EventRecorder | undefined;
}

export async function runCommand(r: CommandRequest): Promise<Answer> {
  const spec = COMMANDS[r.route];
  let call: () => Promise<CmdResult>;
  if (spec.rpc === 'freezeVirtualMachine') {
    const parsed = parseFreezeBody(r.body);
    if (isRestError(parsed)) return failure(parsed);
    call = (): Promise<CmdResult> => r.launcher.freezeVirtualMachine(r.vmi, parsed.unfreezeTimeoutSeconds);
  } else {
    const rpc = spec.rpc;
    call = (): Promise<CmdResult> => r.launcher.vmiCommand(rpc, r.vmi);
  }
  const result = await attempt(spec.command, spec.failStatus, call);
  if (isRestError(result)) {
    if (r.route === 'freeze')
      r.recorder?.event(r.vmi, 'Warning', 'FreezeError', `Failed to freeze VMI: ${result.message}`);
    return failure(result);
  }
  if (spec.event !== undefined) r.recorder?.event(r.vmi, 'Normal', spec.event.reason, spec.event.message);
  return { status: 202 };
}

export async function runQuery(route: QueryRoute, launcher: LifecycleLauncher): Promise<Answer> {
  const spec = QUERIES[route];
  const result = await attempt(spec.command, 500, () => spec.call(launcher));
  if (isRestError(result)) return failure(result);
  if (!spec.list) return { status: 200, json: result.payload ?? {} };
  // Go unmarshals the JSON list into a nil slice when the launcher sent nothing: "items": null.
  return { status: 200, json: { metadata: {}, items: result.payload ?? null } };
}
