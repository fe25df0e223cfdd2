/**
 * The last domain each launcher reported over Notify, per VMI uid (KubeVirt's handler keeps a domain informer fed
 * by these events). The sync reads the domain from the launcher itself; this answers only when the launcher is
 * gone: a launcher that shut its guest down on SIGTERM reports the Shutoff domain and exits, and that last word
 * makes the VMI Succeeded instead of Failed. A domain that was still alive when its launcher went says nothing.
 */
import type { DomainJson } from '../../rpc/index.ts';
import { domainAlive } from '../vmi/decide.ts';

export class NotifiedDomains {
  private readonly last = new Map<string, DomainJson>();

  note(vmiUid: string, domain: unknown): void {
    const d = domain as Partial<DomainJson> | undefined;
    if (d?.kind === 'Domain' && d.Status !== undefined) this.last.set(vmiUid, d as DomainJson);
  }

  /** The last domain reported for the VMI, when it had stopped. */
  stopped(vmiUid: string): DomainJson | undefined {
    const d = this.last.get(vmiUid);
    return d !== undefined && !domainAlive(d) ? d : undefined;
  }

  forget(vmiUid: string): void {
    this.last.delete(vmiUid);
  }
}
