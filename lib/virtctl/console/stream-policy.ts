/**
 * What a console (or VNC) websocket does next after a connection attempt or a session ends, as virtctl's
 * client does and a bit more: while connecting, a 400 (the VMI is not running yet) is tried again every second
 * until --timeout; any other refusal fails at once. Once connected, an abnormal close (1006, no close frame),
 * a network error or a server going away/restarting reconnects, again until --timeout; a normal close ends
 * the session with success. A 4xx refusal on reconnect other than 400 fails. Pure.
 */
export type StreamOutcome =
  /** The upgrade was answered with an HTTP status. */
  | { readonly kind: 'refused'; readonly status: number }
  /** No answer: connection refused, reset, TLS, DNS. */
  | { readonly kind: 'network' }
  /** The open session was closed with this websocket code. */
  | { readonly kind: 'closed'; readonly code: number };

export type StreamStep = 'retry' | 'finish' | 'fail';

/** Close codes after which the server may be back soon: going away, abnormal, internal error, restart, try later. */
const TRANSIENT_CLOSES = new Set([1001, 1006, 1011, 1012, 1013, 1014]);

export function nextStreamStep(outcome: StreamOutcome, wasConnected: boolean): StreamStep {
  switch (outcome.kind) {
    case 'refused':
      if (outcome.status === 400) return 'retry';
      return wasConnected && outcome.status >= 500 ? 'retry' : 'fail';
    case 'network':
      return wasConnected ? 'retry' : 'fail';
    case 'closed':
      if (outcome.code === 1000 || outcome.code === 1005) return 'finish';
      return TRANSIENT_CLOSES.has(outcome.code) ? 'retry' : 'fail';
  }
}
