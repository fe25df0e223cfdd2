/**
 * `virtctl-ts port-forward` (KubeVirt virtctl's PortForward.Run): with --stdio, one tunnel copied to
 * stdout/stdin (what ssh's ProxyCommand runs) until either side ends; otherwise a listener per port on
 * --address, printing virtctl's "forwarding tcp 127.0.0.1:8080 to 80" line for each, until interrupted or a
 * final refusal. An interrupt closes the listeners and every open tunnel with 1000, and the command succeeds.
 */
import type { Clock } from '../../kernel/clock.ts';
import type { VirtctlClient } from '../client.ts';
import { CommandFailed } from '../errors/failures.ts';
import { writeLine, type CliIo } from '../io.ts';
import {
  LEGACY_TARGET_WARNING,
  describeForward,
  type ForwardArgs,
  type ForwardedPort,
} from './forward-args.ts';
import { bridge } from './stream-bridge.ts';
import { forwardTcp } from './tcp-forward.ts';
import { openTunnel, refusalPrefix, type ForwardContext, type Forwarder } from './tunnel.ts';
import { forwardUdp } from './udp-forward.ts';

export interface PortForwardOptions {
  readonly client: VirtctlClient;
  readonly args: ForwardArgs;
  readonly address: string;
  readonly stdio: boolean;
  readonly io: CliIo;
  readonly clock: Clock;
}

/** Resolves once the run is interrupted (at once if it already is). */
function interrupted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener(
      'abort',
      () => {
        resolve();
      },
      { once: true },
    );
  });
}

/** Close codes of a tunnel that ended in order: normal, or no code given. */
const CLEAN_CLOSES = new Set([1000, 1005]);

async function forwardStdio(ctx: ForwardContext, port: ForwardedPort): Promise<void> {
  const { io } = ctx;
  const ws = await openTunnel(ctx, port).catch((err: unknown) => {
    throw new CommandFailed(refusalPrefix(ctx, port), err);
  });
  const b = bridge({ input: io.stdin, output: io.stdout, release: () => undefined }, ws, ctx.clock);
  const onAbort = (): void => {
    b.stop();
  };
  if (io.signal.aborted) b.stop();
  io.signal.addEventListener('abort', onAbort, { once: true });
  const end = await b.done;
  io.signal.removeEventListener('abort', onAbort);
  if (end.by === 'remote' && !CLEAN_CLOSES.has(end.code)) {
    const why = end.reason === '' ? '' : `: ${end.reason}`;
    throw new Error(`the tunnel to ${describeForward(ctx.target, port)} dropped (code ${end.code}${why})`);
  }
}

export async function runPortForward(o: PortForwardOptions): Promise<void> {
  const { target, ports } = o.args;
  if (target.legacy) writeLine(o.io.stderr, `Warning: ${LEGACY_TARGET_WARNING}`);
  let failure: Error | undefined;
  let failed = (): void => undefined;
  const stopped = new Promise<void>((resolve) => {
    failed = resolve;
  });
  const ctx: ForwardContext = {
    client: o.client,
    target: { kind: target.kind, name: target.name, namespace: target.namespace ?? o.client.namespace },
    io: o.io,
    clock: o.clock,
    fail: (err) => {
      failure ??= err;
      failed();
    },
  };
  const [first] = ports;
  if (o.stdio && first !== undefined) {
    await forwardStdio(ctx, first);
    return;
  }
  const forwarders: Forwarder[] = [];
  try {
    for (const p of ports) {
      forwarders.push(await (p.protocol === 'udp' ? forwardUdp : forwardTcp)(ctx, o.address, p));
    }
    await Promise.race([interrupted(o.io.signal), stopped]);
  } finally {
    await Promise.all(forwarders.map((f) => f.close()));
  }
  if (failure !== undefined) throw failure;
}
