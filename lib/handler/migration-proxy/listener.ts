/**
 * One migration proxy listener (kubevirt migration-proxy migrationProxy Start/Stop/handleConnection, tag v1.6.2):
 * every accepted connection dials the far end and the two are relayed until both close. The target's listens
 * with TLS on a node port and dials a unix socket in the target launcher Pod; the source's listens on a unix
 * socket in the source launcher Pod and dials the target's port with TLS. Stop closes the listener and destroys
 * the open tunnels.
 */
import type { Server, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { relay } from './relay.ts';

export interface ProxyListener {
  /** Where it listens, for logs and messages. */
  readonly address: string;
  /** Tunnels open now. */
  connections(): number;
  /** Stops listening and destroys the open tunnels; resolves once the listener is closed. */
  stop(): Promise<void>;
}

/** What serving the accepted connections needs. */
export interface Forwarding {
  /** Dials the far end for one accepted connection. */
  readonly dial: () => Promise<Duplex>;
  readonly log: Logger;
}

/**
 * Connections one tunnel holds at most, accepted or still in their TLS handshake. libvirt opens one to its peer and
 * QEMU at most one per parallel migration thread (8); the source socket is reachable by anything in the tenant's
 * Pod and the target port by anything on the node's network, so neither may grow the handler without bound.
 */
export const MAX_CONNECTIONS = 32;

/**
 * Tracks the accepted connections of `server` and relays each to a freshly dialled far end. The far ends are
 * dialled one at a time, in the order the connections came: QEMU before 8.1 (7.2 here) takes the first
 * connection of an incoming migration as its main channel and every later one as a multifd channel, so the order
 * the source's QEMU connected in must hold at the target's socket. Dialled at once, the TLS handshakes (and the
 * target's descriptor-safe opens) finish in any order, and a multifd channel that overtakes the main one fails the
 * migration ("received packet magic 5145564d expected 11223344", libvirt's "Unable to write to socket").
 */
export class Tunnels {
  /** Both legs of every tunnel. */
  private readonly open = new Set<Duplex>();
  /** The accepted ends of the tunnels. */
  private readonly inbound = new Set<Duplex>();
  /** Raw connections, from their accept on (a TLS one before its handshake ends). */
  private readonly raw = new Set<Duplex>();
  private stopped = false;
  /** The last dial, settled or not: the next one starts once it settles. */
  private dialing: Promise<unknown> = Promise.resolve();

  constructor(private readonly f: Forwarding) {}

  /** Dials after every earlier dial settled. */
  private dialInOrder(): Promise<Duplex> {
    const next = this.dialing.then(() => this.f.dial());
    this.dialing = next.catch(() => undefined);
    return next;
  }

  /** Connections open now: both legs of each tunnel. */
  count(): number {
    return [...this.open].filter((s) => !s.destroyed).length;
  }

  /** Relays `inbound` (accepted and, for TLS, checked) to a new far end. */
  accept(inbound: Socket): void {
    inbound.on('error', () => undefined);
    if (this.stopped || this.full(this.inbound)) {
      inbound.destroy();
      return;
    }
    this.track(this.inbound, inbound);
    this.track(this.open, inbound);
    this.dialInOrder()
      .then((outbound) => {
        if (this.stopped || inbound.destroyed) {
          outbound.destroy();
          inbound.destroy();
          return;
        }
        this.track(this.open, outbound);
        return relay(inbound, outbound).then((err) => {
          if (err !== undefined)
            this.f.log.v(2).info('migration tunnel broke', { reason: errorMessage(err) });
        });
      })
      .catch((err: unknown) => {
        this.f.log.warning('migration tunnel cannot reach its far end', { reason: errorMessage(err) });
        inbound.destroy();
      });
  }

  /** Tracks a raw connection from its accept on, so stop cuts it too. */
  acceptRaw(s: Duplex): void {
    if (this.stopped || this.full(this.raw)) s.destroy();
    else this.track(this.raw, s);
  }

  /** `held` is at the cap: the connection is refused, and said so. */
  private full(held: Set<Duplex>): boolean {
    if (held.size < MAX_CONNECTIONS) return false;
    this.f.log.warning('migration tunnel refused a connection', { max: MAX_CONNECTIONS });
    return true;
  }

  private track(set: Set<Duplex>, s: Duplex): void {
    set.add(s);
    s.once('close', () => set.delete(s));
  }

  destroyAll(): void {
    this.stopped = true;
    for (const s of [...this.open, ...this.raw]) s.destroy();
    this.open.clear();
    this.inbound.clear();
    this.raw.clear();
  }
}

/** Closes `server` (no new connections) and destroys the tunnels; resolves when the server is closed. */
export function stopServer(server: Server, tunnels: Tunnels): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => {
      resolve();
    });
  });
  tunnels.destroyAll();
  return closed;
}
