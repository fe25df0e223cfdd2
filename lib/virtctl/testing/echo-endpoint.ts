/**
 * Test support: a portforward endpoint on the fake API that echoes every websocket message back as one binary
 * message (a TCP echo service's bytes, or a UDP one's datagrams), and keeps each tunnel's request, messages
 * and close code; queued refusals are answered before any upgrade is accepted.
 */
import type { WebSocket } from 'ws';
import { waitFor } from '../../kernel/testing/wait.ts';
import type { Answer, FakeApi, Recorded } from './fake-api.ts';

export interface Tunnel {
  readonly ws: WebSocket;
  readonly request: Recorded;
  readonly messages: Buffer[];
  /** Set when the client's close arrived (or the connection dropped: 1006). */
  closeCode?: number;
}

export class EchoEndpoint {
  readonly tunnels: Tunnel[] = [];
  /** Refusals answered before any upgrade is accepted, in order. */
  refusals: Answer[] = [];

  constructor(api: FakeApi, path: string) {
    api.wsRoutes.push((r) => {
      if (r.path.split('?')[0] !== path) return undefined;
      const refuse = this.refusals.shift();
      if (refuse !== undefined) return { refuse };
      return {
        accept: (ws): void => {
          const t: Tunnel = { ws, request: r, messages: [] };
          ws.on('message', (d: Buffer) => {
            t.messages.push(d);
            ws.send(d, { binary: true });
          });
          ws.on('close', (code: number) => (t.closeCode = code));
          ws.on('error', () => undefined);
          this.tunnels.push(t);
        },
      };
    });
  }

  /** The n-th accepted tunnel (0-based), once it is there. */
  tunnel(n: number): Promise<Tunnel> {
    return waitFor(() => this.tunnels[n], `portforward tunnel ${n}`, { timeoutMs: 15_000 });
  }
}
