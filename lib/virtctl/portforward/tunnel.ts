/**
 * What the TCP and UDP forwarders share: opening one portforward websocket for a port (KubeVirt's
 * `PortForward(name, port, protocol)`), virtctl's "forwarding tcp 127.0.0.1:8080 to 80" line, and what a
 * refused tunnel does: a line naming the VM and port, or for a refusal no later connection gets past (401,
 * 403, 404) the end of the command with it.
 */
import type { WebSocket } from 'ws';
import type { Clock } from '../../kernel/clock.ts';
import { StatusError, errorMessage } from '../../kernel/errors/errors.ts';
import type { VirtctlClient } from '../client.ts';
import { dialSubresource } from '../console/ws-dial.ts';
import { CommandFailed, RequestFailed } from '../errors/failures.ts';
import { codeOf, messageOf } from '../errors/transport-reason.ts';
import { writeLine, type CliIo } from '../io.ts';
import { describeForward, portForwardPath, type ForwardedPort, type ResolvedTarget } from './forward-args.ts';

export interface ForwardContext {
  readonly client: VirtctlClient;
  readonly target: ResolvedTarget;
  readonly io: CliIo;
  readonly clock: Clock;
  /** Ends the command with this failure (a final refusal). */
  readonly fail: (err: Error) => void;
}

/** A listening forwarder of one port. */
export interface Forwarder {
  /** Stops listening and closes every tunnel it opened. */
  close(): Promise<void>;
}

export function openTunnel(ctx: ForwardContext, port: ForwardedPort): Promise<WebSocket> {
  return dialSubresource(ctx.client, portForwardPath(ctx.target, port));
}

export function refusalPrefix(ctx: ForwardContext, port: ForwardedPort): string {
  return `can't access ${describeForward(ctx.target, port)}`;
}

const FINAL_REFUSALS = new Set([401, 403, 404]);

/** No connection after this one can succeed: the credentials, the RBAC or the object itself is missing. */
function isFinal(err: unknown): boolean {
  const cause = err instanceof RequestFailed ? err.cause : err;
  return cause instanceof StatusError && FINAL_REFUSALS.has(cause.httpCode);
}

export function tunnelRefused(ctx: ForwardContext, port: ForwardedPort, err: unknown): void {
  const prefix = refusalPrefix(ctx, port);
  if (isFinal(err)) {
    ctx.fail(new CommandFailed(prefix, err));
    return;
  }
  writeLine(ctx.io.stderr, `${prefix}: ${errorMessage(err)}`);
}

/** `127.0.0.1:8080`, `[::1]:8080`. */
function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

/** virtctl's line once a port listens, with the address and port bound (local port 0 picks one). */
export function forwardingLine(port: ForwardedPort, bound: Bound): string {
  return `forwarding ${port.protocol} ${hostPort(bound.address, bound.port)} to ${port.remote}`;
}

/** Where a listener is bound: the address as resolved, and the port taken. */
export interface Bound {
  readonly address: string;
  readonly port: number;
}

/** The listen failure, naming the fix (a busy port, an address not on this host). */
export function listenError(protocol: string, address: string, port: number, err: unknown): Error {
  const code = codeOf(err);
  const where = `${protocol} ${hostPort(address, port)}`;
  if (code === 'EADDRINUSE')
    return new Error(`cannot listen on ${where}: the port is in use; pick another local port`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new Error(`cannot listen on ${where}: no such local address; check --address`);
  }
  return new Error(`cannot listen on ${where}: ${messageOf(err)}`, { cause: err });
}
