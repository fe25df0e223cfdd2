/**
 * One console and one VNC session per VMI. A serial console already open refuses the next one before it takes
 * a slot (upgrade.ts, CONSOLE_IN_USE). A new VNC session takes the slot and ends the one holding it (kubevirt
 * pkg/virt-handler/rest/console.go newStopChan), whose websocket is closed with 1001 "close by another
 * connection" as the Deckhouse fork does (3p-kubevirt v1.6.2-virtualization). A session releases only its own
 * slot, so a late release of a replaced session leaves its successor alone. No IO.
 */
import type { StreamRoute } from './routes.ts';

export const REPLACED_CLOSE_CODE = 1001;
export const REPLACED_CLOSE_REASON = 'close by another connection';

/** Why a session is ended from the server side. */
export type EndCause = 'replaced' | 'shutdown';

export const SHUTDOWN_CLOSE_CODE = 1001;
export const SHUTDOWN_CLOSE_REASON = 'server shutting down';

interface Slot {
  readonly id: number;
  readonly end: (cause: EndCause) => void;
}

export class SessionSlots {
  private readonly slots = new Map<string, Slot>();
  private seq = 0;

  /** Takes the (kind, VMI uid) slot; `end` of a session already there is called first. Returns release. */
  take(kind: StreamRoute, vmiUid: string, end: (cause: EndCause) => void): () => void {
    const key = `${kind}/${vmiUid}`;
    const previous = this.slots.get(key);
    const id = ++this.seq;
    this.slots.set(key, { id, end });
    previous?.end('replaced');
    return (): void => {
      if (this.slots.get(key)?.id === id) this.slots.delete(key);
    };
  }

  has(kind: StreamRoute, vmiUid: string): boolean {
    return this.slots.has(`${kind}/${vmiUid}`);
  }

  count(kind: StreamRoute): number {
    let n = 0;
    for (const key of this.slots.keys()) if (key.startsWith(`${kind}/`)) n++;
    return n;
  }

  /** Ends every session (server shutdown). */
  endAll(): void {
    const all = [...this.slots.values()];
    this.slots.clear();
    for (const s of all) s.end('shutdown');
  }
}
