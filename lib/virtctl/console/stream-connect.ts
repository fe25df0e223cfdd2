/**
 * Connects a subresource websocket under the stream policy: tries again every second while the policy says so
 * (a VMI not running yet, a server restarting after a drop), until the deadline; then fails with virtctl's
 * "Timeout trying to connect to the virtual machine instance" and the last refusal.
 */
import type { WebSocket } from 'ws';
import type { Clock } from '../../kernel/clock.ts';
import { KvError, StatusError, errorMessage } from '../../kernel/errors/errors.ts';
import type { VirtctlClient } from '../client.ts';
import { RequestFailed, timeoutError } from '../errors/failures.ts';
import { nextStreamStep, type StreamOutcome } from './stream-policy.ts';
import { dialSubresource } from './ws-dial.ts';

const RETRY_INTERVAL_MS = 1000;
const CONNECT_TIMEOUT_TEXT = 'Timeout trying to connect to the virtual machine instance';

export interface ConnectOptions {
  readonly client: VirtctlClient;
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly deadline: number;
  /** A session was open before (reconnecting): network errors and 5xx are tried again too. */
  readonly wasConnected: boolean;
  readonly clock: Clock;
  readonly signal: AbortSignal;
}

/** How the attempt failed, for the policy; anything unexpected is a failure. */
function outcomeOf(err: unknown): StreamOutcome | undefined {
  const cause = err instanceof RequestFailed ? err.cause : err;
  if (cause instanceof StatusError) return { kind: 'refused', status: cause.httpCode };
  if (cause instanceof KvError && cause.code === 'KV_ERR_TRANSPORT') return { kind: 'network' };
  return undefined;
}

export async function connectStream(o: ConnectOptions): Promise<WebSocket> {
  for (;;) {
    try {
      return await dialSubresource(o.client, o.path, o.query);
    } catch (err) {
      const outcome = outcomeOf(err);
      if (outcome === undefined || nextStreamStep(outcome, o.wasConnected) !== 'retry') throw err;
      if (o.clock.now() + RETRY_INTERVAL_MS > o.deadline) {
        throw timeoutError(`${CONNECT_TIMEOUT_TEXT} (last answer: ${errorMessage(err)})`);
      }
      await o.clock.sleep(RETRY_INTERVAL_MS, o.signal).catch(() => {
        throw new KvError('KV_ERR_ABORTED', 'interrupted');
      });
    }
  }
}
