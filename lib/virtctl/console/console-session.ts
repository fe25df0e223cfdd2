/**
 * `virtctl-ts console <vmi>`: the serial console over a websocket through the API server. Waits up to
 * --timeout for the VMI's console (a 400 "not running" is tried again each second), attaches the terminal
 * (raw when it is one), prints virtctl's "Successfully connected" line on stderr, copies typed bytes to the
 * guest and the guest's bytes to stdout. Ctrl+], the end of stdin or an interrupt end it with success; a
 * transient drop (abnormal close, network error, server restarting) reconnects within --timeout.
 */
import type { WebSocket } from 'ws';
import { subresourcePath } from '../../kubevirt/gvr.ts';
import type { Clock } from '../../kernel/clock.ts';
import { keepAlive } from '../../kernel/ws/keepalive.ts';
import type { VirtctlClient } from '../client.ts';
import { DISCONNECTED_TEXT, connectedLine, splitAtEscape } from './console-keys.ts';
import { usageError } from '../errors/failures.ts';
import type { CliIo } from '../io.ts';
import { connectStream } from './stream-connect.ts';
import { nextStreamStep } from './stream-policy.ts';
import { attachTerminal, type Terminal } from './terminal.ts';

export interface ConsoleOptions {
  readonly client: VirtctlClient;
  readonly name: string;
  readonly timeoutMs: number;
  readonly io: CliIo;
  readonly clock: Clock;
  /** Client pings; a missed pong drops the session (and so reconnects). */
  readonly pingIntervalMs?: number;
}

type SessionEnd = { readonly kind: 'local' } | { readonly kind: 'closed'; readonly code: number };

function session(ws: WebSocket, term: Terminal, o: ConsoleOptions): Promise<SessionEnd> {
  return new Promise((resolve) => {
    const ka = keepAlive(ws, {
      intervalMs: o.pingIntervalMs ?? 15_000,
      clock: o.clock,
      onOverdue: () => {
        ws.terminate();
      },
    });
    const finish = (end: SessionEnd): void => {
      ka.cancel();
      detach();
      o.io.signal.removeEventListener('abort', onAbort);
      ws.removeAllListeners('message');
      ws.removeAllListeners('close');
      if (end.kind === 'local') ws.close(1000);
      resolve(end);
    };
    const onAbort = (): void => {
      finish({ kind: 'local' });
    };
    const detach = term.read(
      (chunk) => {
        const { forward, escape } = splitAtEscape(chunk);
        if (forward.length > 0 && ws.readyState === ws.OPEN) ws.send(forward);
        if (escape) finish({ kind: 'local' });
      },
      () => {
        finish({ kind: 'local' });
      },
    );
    ws.on('message', (data: Buffer) => o.io.stdout.write(data));
    ws.on('error', () => undefined);
    ws.on('close', (code) => {
      finish({ kind: 'closed', code });
    });
    o.io.signal.addEventListener('abort', onAbort, { once: true });
  });
}

export async function runConsole(o: ConsoleOptions): Promise<void> {
  if (!(o.timeoutMs > 0)) throw usageError('--timeout must be a positive number of minutes');
  const { client, name, io } = o;
  const path = subresourcePath(
    { resource: 'virtualmachineinstances', namespace: client.namespace, name },
    'console',
  );
  let term: Terminal | undefined;
  let wasConnected = false;
  try {
    for (;;) {
      const deadline = o.clock.now() + o.timeoutMs;
      const ws = await connectStream({
        client,
        path,
        deadline,
        wasConnected,
        clock: o.clock,
        signal: io.signal,
      });
      term ??= attachTerminal(io.stdin);
      io.stderr.write(`${connectedLine(name)}\n`);
      wasConnected = true;
      const end = await session(ws, term, o);
      if (end.kind === 'local') return;
      const step = nextStreamStep({ kind: 'closed', code: end.code }, true);
      if (step === 'finish') return;
      if (step === 'fail') throw new Error(`the console connection closed with code ${end.code}`);
      io.stderr.write(`\r\nThe console connection dropped (code ${end.code}); reconnecting...\r\n`);
    }
  } catch (err) {
    if (io.signal.aborted) return;
    if (wasConnected) io.stderr.write(`\n${DISCONNECTED_TEXT}\n`);
    throw err;
  } finally {
    term?.restore();
  }
}
