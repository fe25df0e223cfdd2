/**
 * The last domain each launcher reported over Notify, per VMI uid (KubeVirt's handler keeps a domain informer fed
 * by these events). The sync reads the domain from the launcher itself; this answers only when the launcher is
 * gone: a launcher that shut its guest down on SIGTERM reports the Shutoff domain and exits, and that last word
 * makes the VMI Succeeded instead of Failed. A domain that was still alive when its launcher went says nothing.
 * Only the node's own VMIs reach it (notify/accept.ts), and it holds at most `cap` of them: past that the domain
 * noted longest ago goes first. It also tells a domain event that says nothing new from one that does, so only
 * the latter wakes the VMI (domainEventEnqueuer).
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { objectKey } from '../../kernel/controller/keys.ts';
import { deepEqual } from '../../kernel/controller/merge-patch.ts';
import type { DomainJson } from '../../rpc/index.ts';
import { domainAlive } from '../vmi/decide.ts';

/** Far above the kubelet's default of 110 Pods per node: reached only if VMIs are never forgotten. */
const DEFAULT_NOTIFIED_CAP = 1024;

export class NotifiedDomains {
  private readonly last = new Map<string, DomainJson>();

  constructor(private readonly cap: number = DEFAULT_NOTIFIED_CAP) {}

  /**
   * Keeps the domain as the VMI's last one. False when it is the same as the last one noted for the VMI: the
   * event says nothing new. Anything that is not a domain is not kept, and counts as news.
   */
  note(vmiUid: string, domain: unknown): boolean {
    const d = domain as Partial<DomainJson> | undefined;
    if (d?.kind !== 'Domain' || d.Status === undefined) return true;
    const news = !deepEqual(this.last.get(vmiUid), d);
    // Deleted first, so the Map's order is the order of the last note.
    this.last.delete(vmiUid);
    this.last.set(vmiUid, d as DomainJson);
    for (const oldest of this.last.keys()) {
      if (this.last.size <= this.cap) break;
      this.last.delete(oldest);
    }
    return news;
  }

  /** The last domain reported for the VMI, when it had stopped. */
  stopped(vmiUid: string): DomainJson | undefined {
    const d = this.last.get(vmiUid);
    return d !== undefined && !domainAlive(d) ? d : undefined;
  }

  forget(vmiUid: string): void {
    this.last.delete(vmiUid);
  }

  /** The uids held, oldest note first. */
  uids(): string[] {
    return [...this.last.keys()];
  }
}

/**
 * The handler's Notify domain-event callback (kubevirt vm.go addDomainFunc/updateDomainFunc enqueue on each one):
 * notes the domain and enqueues the VMI's key unless the domain is the same as the last one its launcher
 * reported. The sync reads the domain itself, so such an event could only repeat a look already taken; and a
 * launcher that defines the domain anew on each failed SyncVirtualMachine reports the same domain each time,
 * whose plain add would otherwise skip the failure backoff of the key's rate-limited retry. Any change (state,
 * reason, spec, guest facts) is news and enqueues at once.
 */
export function domainEventEnqueuer(
  notified: NotifiedDomains,
  add: (key: string) => void,
): (vmi: VirtualMachineInstance, eventType: string, domain: unknown) => void {
  return (vmi, _eventType, domain) => {
    if (notified.note(vmi.metadata.uid ?? '', domain)) add(objectKey(vmi));
  };
}
