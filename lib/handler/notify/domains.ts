/**
 * The last domain each launcher reported over Notify, per VMI uid (KubeVirt's handler keeps a domain informer fed
 * by these events). The sync reads the domain from the launcher itself; this answers only when the launcher is
 * gone: a launcher that shut its guest down on SIGTERM reports the Shutoff domain and exits, and that last word
 * makes the VMI Succeeded instead of Failed. A domain that was still alive when its launcher went says nothing.
 * Only the node's own VMIs reach it (notify/accept.ts), and it holds at most `cap` of them: past that the domain
 * noted longest ago goes first.
 */
import type { DomainJson } from '../../rpc/index.ts';
import { domainAlive } from '../vmi/decide.ts';

/** Far above the kubelet's default of 110 Pods per node: reached only if VMIs are never forgotten. */
const DEFAULT_NOTIFIED_CAP = 1024;

export class NotifiedDomains {
  private readonly last = new Map<string, DomainJson>();

  constructor(private readonly cap: number = DEFAULT_NOTIFIED_CAP) {}

  note(vmiUid: string, domain: unknown): void {
    const d = domain as Partial<DomainJson> | undefined;
    if (d?.kind !== 'Domain' || d.Status === undefined) return;
    // Deleted first, so the Map's order is the order of the last note.
    this.last.delete(vmiUid);
    this.last.set(vmiUid, d as DomainJson);
    for (const oldest of this.last.keys()) {
      if (this.last.size <= this.cap) break;
      this.last.delete(oldest);
    }
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
