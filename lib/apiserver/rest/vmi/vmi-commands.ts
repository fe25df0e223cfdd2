/**
 * The VMI commands virt-api checks and forwards to the handler (kubevirt rest/lifecycle.go PauseVMIRequestHandler,
 * UnpauseVMIRequestHandler, FreezeVMIRequestHandler, UnfreezeVMIRequestHandler, SoftRebootVMIRequestHandler,
 * ResetVMIRequestHandler, tag v1.6.2), each check in KubeVirt's order (404 for a missing VMI where it is read):
 * - pause: the body (PauseOptions) first; then Running (409 "VM is not running"), no liveness probe (403), no
 *   Paused condition (409); with dryRun ["All", …] the checks alone, answered 200;
 * - unpause: 409 while the VM of that name has a snapshot in progress; the body; Running (409 "VMI is not
 *   running"); a Paused condition (409 "VMI is not paused"); dryRun as for pause;
 * - freeze: Running (409 "VM is not running"). KubeVirt's virt-api leaves the body to the handler, which answers
 *   400 for a missing or bad unfreezeTimeout; virt-api then answers 500 quoting that. The same parser as the
 *   handler's runs here, so that answer comes without the round trip, word for word;
 * - unfreeze: Running (409 "VMI is not running");
 * - softreboot: Running (409 "VM is not running"), not paused (409), and the guest agent connected or ACPI not
 *   switched off (409);
 * - reset: no check of its own: a VMI neither Running nor Scheduled is the connection's 400, explained ("Failed to
 *   reset non-running VMI with phase X: …"), as is a failed call to a Scheduled one.
 * pause and unpause have read the body, so the handler gets none; the others pass it on. Pure.
 */
import { findCondition, hasConditionStatus } from '../../../kubevirt/conditions.ts';
import type { VirtualMachine, VirtualMachineInstance } from '../../../kubevirt/index.ts';
import { parseFreezeBody } from '../../../kubevirt/subresources/freeze-body.ts';
import type { HandlerCommand } from '../../../kubevirt/subresources/handler-subresources.ts';
import { isRunning } from '../../../kubevirt/vmi-state.ts';
import { decodeOptions } from '../body/decode-body.ts';
import { connectRefusal, handlerCall, unexpectedReturnCode, type HandlerCall } from './handler-call.ts';
import { conflict, forbidden, internalError, isRefusal, notFound, type Refusal } from '../refusal.ts';
import { VM_NOT_RUNNING, VMI_NOT_RUNNING } from '../messages.ts';

export type VmiCommand = HandlerCommand;

export interface VmiCommandRequest {
  /** The name in the request path. */
  readonly name: string;
  readonly vmi: VirtualMachineInstance | undefined;
  /** unpause: the VM of that name, when there is one. */
  readonly vm?: VirtualMachine | undefined;
  /** pause, unpause: the body parsed as JSON (undefined or null when empty). */
  readonly body?: unknown;
  /** freeze: the body as received. */
  readonly rawBody?: string;
}

export type CommandPlan = { readonly call: HandlerCall } | { readonly dryRun: true; readonly status: 200 };

type Check = (vmi: VirtualMachineInstance) => Refusal | undefined;

const hasCondition = (vmi: VirtualMachineInstance, type: string): boolean =>
  findCondition(vmi.status?.conditions, type) !== undefined;

function vmiConflict(vmi: VirtualMachineInstance, text: string): Refusal {
  return conflict('virtualmachineinstance', vmi.metadata.name ?? '', text);
}

const runningOr =
  (text: string): Check =>
  (vmi) =>
    isRunning(vmi) ? undefined : vmiConflict(vmi, text);

const pauseCheck: Check = (vmi) =>
  runningOr(VM_NOT_RUNNING)(vmi) ??
  (vmi.spec.livenessProbe !== undefined
    ? forbidden(
        'virtualmachineinstance',
        vmi.metadata.name ?? '',
        'Pausing VMIs with LivenessProbe is currently not supported',
      )
    : undefined) ??
  (hasCondition(vmi, 'Paused') ? vmiConflict(vmi, 'VMI is already paused') : undefined);

const unpauseCheck: Check = (vmi) =>
  runningOr(VMI_NOT_RUNNING)(vmi) ??
  (hasCondition(vmi, 'Paused') ? undefined : vmiConflict(vmi, 'VMI is not paused'));

const softRebootCheck: Check = (vmi) => {
  const notRunning = runningOr(VM_NOT_RUNNING)(vmi);
  if (notRunning !== undefined) return notRunning;
  if (hasConditionStatus(vmi.status?.conditions, 'Paused', 'True')) return vmiConflict(vmi, 'VMI is paused');
  const acpiOff = vmi.spec.domain.features?.acpi?.enabled === false;
  if (!hasCondition(vmi, 'AgentConnected') && acpiOff) {
    return vmiConflict(vmi, 'VMI neither have the agent connected nor the ACPI feature enabled');
  }
  return undefined;
};

/** The handler's answer to a freeze body it refuses, as virt-api passes it on. */
function freezeBodyRefusal(rawBody: string | undefined): Refusal | undefined {
  const parsed = parseFreezeBody(rawBody ?? '');
  if (!('status' in parsed)) return undefined;
  return internalError(unexpectedReturnCode(parsed.status, 'Bad Request', parsed.message));
}

/** The VMI read and checked, then the connection; reset explains a refused connection. */
function checked(
  req: VmiCommandRequest,
  check: Check | undefined,
  explain?: boolean,
): VirtualMachineInstance | Refusal {
  const vmi = req.vmi;
  if (vmi === undefined) return notFound('virtualmachineinstance', req.name);
  const refused = check?.(vmi) ?? connectRefusal(vmi);
  if (refused === undefined) return vmi;
  if (explain !== true || isRunning(vmi)) return refused;
  return { ...refused, message: `${resetPrefix(vmi)}${refused.message}` };
}

const resetPrefix = (vmi: VirtualMachineInstance): string =>
  `Failed to reset non-running VMI with phase ${vmi.status?.phase ?? ''}: `;

/** pause and unpause: the options, the checks, then dryRun or the call (the body was read). */
function withOptions(
  command: 'pause' | 'unpause',
  req: VmiCommandRequest,
  check: Check,
): CommandPlan | Refusal {
  const opts = decodeOptions(command, req.body);
  if (isRefusal(opts)) return opts;
  const vmi = checked(req, check);
  if (isRefusal(vmi)) return vmi;
  if (opts.dryRun?.[0] === 'All') return { dryRun: true, status: 200 };
  return { call: handlerCall(vmi, command, { body: 'none' }) };
}

function forward(
  command: VmiCommand,
  vmi: VirtualMachineInstance | Refusal,
  prefix?: string,
): CommandPlan | Refusal {
  if (isRefusal(vmi)) return vmi;
  return { call: handlerCall(vmi, command, { body: 'request', failurePrefix: prefix }) };
}

const PLANS: { readonly [C in VmiCommand]: (req: VmiCommandRequest) => CommandPlan | Refusal } = {
  pause: (req) => withOptions('pause', req, pauseCheck),
  unpause: (req) =>
    req.vm?.status?.snapshotInProgress !== undefined
      ? conflict('virtualmachine', req.name, 'VM snapshot is in progress')
      : withOptions('unpause', req, unpauseCheck),
  freeze: (req) => {
    const vmi = checked(req, runningOr(VM_NOT_RUNNING));
    return isRefusal(vmi) ? vmi : (freezeBodyRefusal(req.rawBody) ?? forward('freeze', vmi));
  },
  unfreeze: (req) => forward('unfreeze', checked(req, runningOr(VMI_NOT_RUNNING))),
  softreboot: (req) => forward('softreboot', checked(req, softRebootCheck)),
  reset: (req) => {
    const vmi = checked(req, undefined, true);
    return forward('reset', vmi, isRefusal(vmi) || isRunning(vmi) ? undefined : resetPrefix(vmi));
  },
};

export function planVmiCommand(command: VmiCommand, req: VmiCommandRequest): CommandPlan | Refusal {
  return PLANS[command](req);
}
