/**
 * What the api checks before it relays `portforward/{port}[/{protocol}]` (kubevirt pkg/virt-api/rest
 * portforward.go, streamer.go and dialers.go, tag v1.6.2): the VMI, or for a VM the VMI it started and owns
 * (FetchVirtualMachineInstanceForVM: 404 for either, 409 "VMI is not started" while the VM has none); a paused
 * VMI is a 409; the port must be 1-65535 and the protocol tcp or udp (400). KubeVirt's api then dials the VMI's
 * first interface IP itself (400 "no network interfaces are present" without one), which fails wherever that IP is
 * not routable from the api (KubeVirt issue #18399); here the call goes to the handler of the VMI's node, which
 * connects inside the launcher Pod's namespace, so the VMI must be reachable there (connectRefusal) and have a
 * network interface. Pure.
 */
import { findCondition } from '../../../kubevirt/conditions.ts';
import type { VirtualMachine, VirtualMachineInstance } from '../../../kubevirt/index.ts';
import { parsePort } from '../../../rpc/port-forward.ts';
import { badRequest, conflict, isRefusal, notFound, type Refusal } from '../refusal.ts';
import { connectRefusal, handlerCall, type HandlerCall } from './handler-call.ts';

const PROTOCOLS = ['tcp', 'udp'];

export interface PortForwardTarget {
  readonly resource: 'virtualmachines' | 'virtualmachineinstances';
  readonly name: string;
  readonly port: string;
  readonly protocol?: string;
}

/** The VMI the target names, or why there is none. */
function vmiOf(
  t: PortForwardTarget,
  vm: VirtualMachine | undefined,
  vmi: VirtualMachineInstance | undefined,
): VirtualMachineInstance | Refusal {
  if (t.resource === 'virtualmachineinstances') return vmi ?? notFound('virtualmachineinstance', t.name);
  if (vm === undefined) return notFound('virtualmachine', t.name);
  if (vm.status?.created !== true) return conflict('virtualmachine', t.name, 'VMI is not started');
  if (vmi === undefined) return notFound('virtualmachineinstance', t.name);
  const owned = (vmi.metadata.ownerReferences ?? []).some((r) => r.uid === vm.metadata.uid);
  return owned ? vmi : notFound('virtualmachineinstance', t.name);
}

/** The handler call to relay to, or the refusal. vm: the VM of the same name (VM targets only). */
export function planPortForward(
  t: PortForwardTarget,
  vm: VirtualMachine | undefined,
  vmi: VirtualMachineInstance | undefined,
): { readonly call: HandlerCall } | Refusal {
  const protocol = t.protocol ?? 'tcp';
  if (parsePort(t.port) === undefined)
    return badRequest(`invalid port ${JSON.stringify(t.port)}: not 1-65535`);
  if (!PROTOCOLS.includes(protocol))
    return badRequest(`invalid protocol ${JSON.stringify(protocol)}: tcp or udp`);
  const target = vmiOf(t, vm, vmi);
  if (isRefusal(target)) return target;
  if (findCondition(target.status?.conditions, 'Paused') !== undefined)
    return conflict('virtualmachineinstance', t.name, 'VMI is paused');
  const refused = connectRefusal(target);
  if (refused !== undefined) return refused;
  if ((target.status?.interfaces ?? []).length === 0) return badRequest('no network interfaces are present');
  const call = handlerCall(target, 'portforward', { body: 'none' });
  return { call: { ...call, path: `${call.path}/${t.port}/${protocol}` } };
}
