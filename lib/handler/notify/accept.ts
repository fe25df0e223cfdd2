/**
 * What a launcher Pod's Notify endpoint takes, pure (kubevirt pkg/virt-handler/notify-server takes any domain and
 * keys it by the uid the domain itself names; here each endpoint knows the Pod and VMI it serves). A domain event
 * counts only when its domain is that VMI, the VMI is in the node's cache with that uid, and the Pod is one
 * of its active Pods on this node and its own launcher Pod there (lib/handler/launchers/pods.ts: cached with
 * that uid, in the VMI's namespace, controlled by it); a Kubernetes event only when its involvedObject is
 * that VMI, on the same terms.
 * Everything else is dropped, so a launcher can neither fill the handler's memory with made-up uids nor speak
 * for another VMI.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { launcherPodProblem } from '../launchers/pods.ts';

/** The launcher Pod an endpoint serves, and the VMI it was started for. */
export interface NotifyEndpoint {
  readonly podUid: string;
  readonly namespace: string;
  readonly name: string;
  readonly vmiUid: string;
}

type Verdict =
  | { readonly accept: true; readonly vmi: VirtualMachineInstance }
  | { readonly accept: false; readonly reason: string };

interface VerdictInput {
  readonly endpoint: NotifyEndpoint;
  readonly node: string;
  /** The node's cached VMI named `namespace/name` of the endpoint, if any. */
  readonly cached: VirtualMachineInstance | undefined;
  /** The node's cached launcher Pod with the endpoint's Pod uid, if any. */
  readonly pod: Pod | undefined;
  /** The VMI uid the message names (the domain's ObjectMeta.uid, the event's involvedObject.uid). */
  readonly uid: string;
}

function drop(reason: string): Verdict {
  return { accept: false, reason };
}

export function notifyVerdict(i: VerdictInput): Verdict {
  if (i.uid === '') return drop('it names no VMI uid');
  if (i.uid !== i.endpoint.vmiUid) return drop(`it names another VMI than this Pod's (${i.endpoint.vmiUid})`);
  if (i.cached?.metadata.uid !== i.uid) return drop(`VMI ${i.endpoint.vmiUid} is not in the node's cache`);
  if (i.cached.status?.activePods?.[i.endpoint.podUid] !== i.node)
    return drop(`Pod ${i.endpoint.podUid} is not an active Pod of the VMI on this node`);
  const problem = launcherPodProblem(i.cached, i.endpoint.podUid, i.pod, i.node);
  if (problem !== undefined) return drop(problem);
  return { accept: true, vmi: i.cached };
}

function stringAt(v: unknown, outer: string, inner: string): string {
  const o = (v as Record<string, unknown> | null | undefined)?.[outer];
  const s = (o as Record<string, unknown> | null | undefined)?.[inner];
  return typeof s === 'string' ? s : '';
}

/** The VMI uid a domain names (its ObjectMeta.uid), '' when none. */
export function domainUid(domain: unknown): string {
  return stringAt(domain, 'ObjectMeta', 'uid');
}

/** The uid of the object a core/v1 Event is about, '' when none. */
export function involvedUid(event: unknown): string {
  return stringAt(event, 'involvedObject', 'uid');
}
