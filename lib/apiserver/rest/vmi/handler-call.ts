/**
 * A call virt-api forwards to the handler on the VMI's node (kubevirt rest/subresource.go putRequestHandler,
 * httpGetRequestHandler; rest/dialers.go getVirtHandlerFor; client-go kubecli/handler.go, tag v1.6.2):
 * - the handler is reachable only for a VMI that is Running or Scheduled, else 400 "Unable to connect to
 *   VirtualMachineInstance because phase is X instead of Running or Scheduled";
 * - the path is the handler's `/v1/namespaces/{ns}/virtualmachineinstances/{name}/{sub}` (https, wss for the
 *   streams), on the node in vmi.status.nodeName;
 * - a command (PUT) sends the request body on as received, or nothing when virt-api has read it already; success
 *   is 200 with no body. A query (GET) answers the handler's JSON with 200. A stream is upgraded and relayed;
 * - a handler answer outside 2xx reads `unexpected return code <code> (<code> <text>), message: <body>`, and is
 *   answered 500: as a Status for a command, as that bare text for a query; a stream that cannot be dialled is
 *   500 "dialing virt-handler: <error>".
 * Pure.
 */
import type { VirtualMachineInstance } from '../../../kubevirt/index.ts';
import {
  HANDLER_SUBRESOURCES,
  handlerMethod,
  type HandlerCallKind,
  type HandlerMethod,
  type HandlerSubresource,
} from '../../../kubevirt/subresources/handler-subresources.ts';
import { isRunning, isScheduled } from '../../../kubevirt/vmi-state.ts';
import { badRequest, internalError, type Refusal } from '../refusal.ts';

export interface HandlerCall {
  readonly kind: HandlerCallKind;
  /** The node whose handler serves the VMI (vmi.status.nodeName). */
  readonly node: string;
  readonly method: HandlerMethod;
  readonly path: string;
  /** 'request': the request's body bytes as received; 'none': an empty body. */
  readonly body: 'request' | 'none';
  /** Put before the failure text of a command (reset explains a VMI that is not running yet). */
  readonly failurePrefix?: string;
}

function handlerPath(vmi: Pick<VirtualMachineInstance, 'metadata'>, sub: HandlerSubresource): string {
  const { namespace = '', name = '' } = vmi.metadata;
  return `/v1/namespaces/${namespace}/virtualmachineinstances/${name}/${sub}`;
}

/** 400 when the VMI's handler cannot be reached (getVirtHandlerConnForVMI), else undefined. */
export function connectRefusal(vmi: VirtualMachineInstance): Refusal | undefined {
  if (isRunning(vmi) || isScheduled(vmi)) return undefined;
  const phase = vmi.status?.phase ?? '';
  return badRequest(
    `Unable to connect to VirtualMachineInstance because phase is ${phase} instead of Running or Scheduled`,
  );
}

export function handlerCall(
  vmi: VirtualMachineInstance,
  sub: HandlerSubresource,
  shape: Pick<HandlerCall, 'body'> & { readonly failurePrefix?: string | undefined },
): HandlerCall {
  return {
    kind: HANDLER_SUBRESOURCES[sub],
    node: vmi.status?.nodeName ?? '',
    method: handlerMethod(sub),
    path: handlerPath(vmi, sub),
    body: shape.body,
    ...(shape.failurePrefix !== undefined && { failurePrefix: shape.failurePrefix }),
  };
}

/** The handler's answer outside 2xx as the client reports it (kubecli doRequest). */
export function unexpectedReturnCode(code: number, statusText: string, body: string): string {
  return `unexpected return code ${code} (${code} ${statusText}), message: ${body}`;
}

/** What virt-api answers when the call fails; `error` is the failure's text (unexpectedReturnCode, a socket error). */
export function handlerFailure(call: HandlerCall, error: string): Refusal {
  switch (call.kind) {
    case 'command':
      return internalError(`${call.failurePrefix ?? ''}${error}`);
    case 'query':
      return { status: 500, reason: 'InternalError', message: error, plainText: true };
    case 'stream':
      return internalError(`dialing virt-handler: ${error}`);
  }
}
