/**
 * The VMI subresources that read from the handler (kubevirt rest/subresource.go GuestOSInfo, UserList,
 * FilesystemList; rest/console.go validateVMIForConsole; rest/vnc.go validateVMIForVNC; rest/streamer.go, tag
 * v1.6.2):
 * - guestosinfo, userlist, filesystemlist need a Running VMI with the AgentConnected condition. virt-api answers
 *   every refusal of theirs, a missing VMI included, with go-restful's WriteError: 500 and the message as text;
 * - console needs the serial console not switched off (400), a VMI not Failed (409) and Running (400); vnc needs
 *   graphics not switched off (400) and a Running VMI (400). These refusals are Status objects.
 * The plan is the call to forward (handler-call.ts). Pure.
 */
import { findCondition } from '../../../kubevirt/conditions.ts';
import type { VirtualMachineInstance } from '../../../kubevirt/index.ts';
import type { HandlerQuery, HandlerStream } from '../../../kubevirt/subresources/handler-subresources.ts';
import { isRunning } from '../../../kubevirt/vmi-state.ts';
import { connectRefusal, handlerCall, type HandlerCall } from './handler-call.ts';
import { VMI_GUEST_AGENT, VMI_NOT_RUNNING } from '../messages.ts';
import { asPlainText500, badRequest, conflict, notFound, type Refusal } from '../refusal.ts';

export type VmiQuery = HandlerQuery;
export type VmiStream = HandlerStream;

export const NO_SERIAL_CONSOLE = 'No serial consoles are present.';
export const NO_GRAPHICS = 'No graphics devices are present.';
export const VMI_FAILED = 'VMI is in failed status';

function queryRefusal(vmi: VirtualMachineInstance): Refusal | undefined {
  const name = vmi.metadata.name ?? '';
  if (!isRunning(vmi)) return conflict('virtualmachineinstance', name, VMI_NOT_RUNNING);
  if (findCondition(vmi.status?.conditions, 'AgentConnected') === undefined) {
    return conflict('virtualmachineinstance', name, VMI_GUEST_AGENT);
  }
  return connectRefusal(vmi);
}

/** The call for a guest agent query, or its refusal as text (status 500). */
export function planVmiQuery(
  query: VmiQuery,
  name: string,
  vmi: VirtualMachineInstance | undefined,
): { readonly call: HandlerCall } | Refusal {
  if (vmi === undefined) return asPlainText500(notFound('virtualmachineinstance', name));
  const refused = queryRefusal(vmi);
  if (refused !== undefined) return asPlainText500(refused);
  return { call: handlerCall(vmi, query, { body: 'none' }) };
}

function streamRefusal(stream: VmiStream, vmi: VirtualMachineInstance): Refusal | undefined {
  const devices = vmi.spec.domain.devices;
  if (stream === 'console') {
    if (devices.autoattachSerialConsole === false) return badRequest(NO_SERIAL_CONSOLE);
    if (vmi.status?.phase === 'Failed')
      return conflict('virtualmachineinstance', vmi.metadata.name ?? '', VMI_FAILED);
  } else if (devices.autoattachGraphicsDevice === false) {
    return badRequest(NO_GRAPHICS);
  }
  return isRunning(vmi) ? connectRefusal(vmi) : badRequest(VMI_NOT_RUNNING);
}

/** The stream to relay (a websocket to the handler), or its refusal. */
export function planVmiStream(
  stream: VmiStream,
  name: string,
  vmi: VirtualMachineInstance | undefined,
): { readonly call: HandlerCall } | Refusal {
  if (vmi === undefined) return notFound('virtualmachineinstance', name);
  const refused = streamRefusal(stream, vmi);
  if (refused !== undefined) return refused;
  return { call: handlerCall(vmi, stream, { body: 'none' }) };
}
