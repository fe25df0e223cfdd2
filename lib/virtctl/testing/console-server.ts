/**
 * Test support: a console endpoint on the fake API that keeps each accepted websocket and what it received, so
 * a test can write to the newest session, drop it, and read what the CLI typed.
 */
import type { WebSocket } from 'ws';
import { waitFor } from '../../kernel/testing/wait.ts';
import type { Answer, FakeApi, Recorded } from './fake-api.ts';

export interface Session {
  readonly ws: WebSocket;
  readonly request: Recorded;
  received: string;
}

export class ConsoleEndpoint {
  readonly sessions: Session[] = [];
  /** Refusals answered before any upgrade is accepted, in order. */
  refusals: Answer[] = [];

  constructor(api: FakeApi, path: string) {
    api.wsRoutes.push((r) => {
      if (r.path.split('?')[0] !== path) return undefined;
      const refuse = this.refusals.shift();
      if (refuse !== undefined) return { refuse };
      return {
        accept: (ws): void => {
          const s: Session = { ws, request: r, received: '' };
          ws.on('message', (d: Buffer) => (s.received += d.toString('utf8')));
          ws.on('error', () => undefined);
          this.sessions.push(s);
        },
      };
    });
  }

  /** The n-th accepted session (0-based), once it is there. */
  session(n: number): Promise<Session> {
    return waitFor(() => this.sessions[n], `console session ${n}`, { timeoutMs: 15_000 });
  }

  async received(n: number, text: string): Promise<void> {
    const s = await this.session(n);
    await waitFor(
      () => s.received.includes(text),
      () => `session ${n} to receive ${JSON.stringify(text)} (got ${JSON.stringify(s.received)})`,
      { timeoutMs: 15_000 },
    );
  }
}
