import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../clock.ts';
import { KvError } from '../errors/errors.ts';
import { memoryLogger } from '../log/log.ts';
import { runUntilSignal } from './shutdown.ts';
import type { ProcessEvent, ProcessLike, ProcessListener } from './shutdown.ts';

class FakeProc implements ProcessLike {
  readonly listeners = new Map<ProcessEvent, ProcessListener[]>();
  readonly exits: number[] = [];
  on(event: ProcessEvent, listener: ProcessListener): void {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
  }
  off(event: ProcessEvent, listener: ProcessListener): void {
    this.listeners.set(
      event,
      (this.listeners.get(event) ?? []).filter((l) => l !== listener),
    );
  }
  exit(code: number): void {
    this.exits.push(code);
  }
  emit(event: ProcessEvent, arg: unknown): void {
    for (const l of this.listeners.get(event) ?? []) l(arg);
  }
  get listenerCount(): number {
    return [...this.listeners.values()].reduce((n, ls) => n + ls.length, 0);
  }
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A main that returns once its signal aborts, or when release() is called. */
function controllableMain(): {
  main: (s: AbortSignal) => Promise<void>;
  seen: AbortSignal[];
  release: () => void;
} {
  const seen: AbortSignal[] = [];
  let release = (): void => undefined;
  const main = (signal: AbortSignal): Promise<void> => {
    seen.push(signal);
    return new Promise<void>((resolve) => {
      release = resolve;
    });
  };
  return {
    main,
    seen,
    release: (): void => {
      release();
    },
  };
}

function setup(): { proc: FakeProc; clock: FakeClock; log: ReturnType<typeof memoryLogger> } {
  return { proc: new FakeProc(), clock: new FakeClock(), log: memoryLogger('controller') };
}

describe('runUntilSignal', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('aborts main on %s and exits 0 once main returns', async (sig) => {
    const { proc, clock, log } = setup();
    const m = controllableMain();
    const code = runUntilSignal(m.main, { log: log.log, proc, clock, graceMs: 5_000 });
    expect(proc.listenerCount).toBe(4);
    expect(m.seen[0]?.aborted).toBe(false);
    proc.emit(sig, sig);
    expect(m.seen[0]?.aborted).toBe(true);
    expect(m.seen[0]?.reason).toMatchObject({ code: 'KV_ERR_SHUTDOWN' });
    await flush();
    expect(proc.exits).toEqual([]);
    m.release();
    expect(await code).toBe(0);
    expect(proc.exits).toEqual([0]);
    expect(proc.listenerCount).toBe(0);
    expect(log.lines.map((l) => l['msg'])).toEqual(['shutting down', 'stopped']);
  });

  it('exits 1 on a second signal while main is still stopping', async () => {
    const { proc, clock, log } = setup();
    const m = controllableMain();
    const code = runUntilSignal(m.main, { log: log.log, proc, clock });
    proc.emit('SIGTERM', 'SIGTERM');
    proc.emit('SIGINT', 'SIGINT');
    expect(await code).toBe(1);
    m.release();
    await flush();
    expect(proc.exits).toEqual([1]);
  });

  it('exits 1 when main is still running after the grace period', async () => {
    const { proc, clock, log } = setup();
    const m = controllableMain();
    const code = runUntilSignal(m.main, { log: log.log, proc, clock, graceMs: 5_000 });
    proc.emit('SIGTERM', 'SIGTERM');
    clock.advance(4_999);
    await flush();
    expect(proc.exits).toEqual([]);
    clock.advance(1);
    expect(await code).toBe(1);
    expect(log.lines.at(-1)).toMatchObject({ level: 'error', msg: 'graceful shutdown timed out' });
  });

  it.each([
    ['returns by itself', (): Promise<void> => Promise.resolve(), 0],
    ['rejects', (): Promise<void> => Promise.reject(new Error('boom')), 1],
    [
      'throws synchronously',
      (): Promise<void> => {
        throw new Error('boom');
      },
      1,
    ],
  ])('exits with the outcome when main %s', async (_name, main, want) => {
    const { proc, clock, log } = setup();
    expect(await runUntilSignal(main, { log: log.log, proc, clock })).toBe(want);
    expect(proc.exits).toEqual([want]);
    if (want === 1)
      expect(log.lines.at(-1)).toMatchObject({ level: 'error', msg: 'main failed', reason: 'boom' });
  });

  it('treats main rejecting with the abort reason after a signal as a clean stop', async () => {
    const { proc, clock, log } = setup();
    const main = (signal: AbortSignal): Promise<void> =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => {
          reject(signal.reason as Error);
        });
      });
    const code = runUntilSignal(main, { log: log.log, proc, clock });
    proc.emit('SIGTERM', 'SIGTERM');
    expect(await code).toBe(0);
  });

  it.each([
    ['unhandledRejection', 'unhandled promise rejection'],
    ['uncaughtException', 'uncaught exception'],
  ] as const)('logs %s and exits 1', async (event, msg) => {
    const { proc, clock, log } = setup();
    const m = controllableMain();
    const code = runUntilSignal(m.main, { log: log.log, proc, clock });
    proc.emit(event, new Error('lost'));
    expect(await code).toBe(1);
    expect(log.lines.at(-1)).toMatchObject({ level: 'error', msg, reason: 'lost', component: 'controller' });
    expect(log.lines.at(-1)?.['stack']).toEqual(expect.stringContaining('Error: lost'));
    m.release();
    await flush();
    expect(proc.exits).toEqual([1]);
  });
});

describe('runUntilSignal failure lines', () => {
  const configError = new KvError('KV_ERR_CONFIG', 'kubeconfig /k: not valid YAML (line 3, column 1)');

  it.each([
    ['default verbosity 2', 2, false],
    ['verbosity 3', 3, false],
    ['verbosity 4', 4, true],
  ])(
    'reports main failing in one line, with a stack only from -v 4 (%s)',
    async (_name, verbosity, stack) => {
      const { proc, clock } = setup();
      const { log, lines } = memoryLogger('rewriter', verbosity);
      expect(await runUntilSignal(() => Promise.reject(configError), { log, proc, clock })).toBe(1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 'error',
        msg: 'main failed',
        reason: 'KV_ERR_CONFIG: kubeconfig /k: not valid YAML (line 3, column 1)',
      });
      expect('stack' in (lines[0] ?? {})).toBe(stack);
    },
  );

  it.each([
    ['unhandledRejection', 2, false],
    ['uncaughtException', 2, false],
    ['unhandledRejection', 4, true],
    ['uncaughtException', 4, true],
  ] as const)('reports %s at verbosity %i with a stack: %s', async (event, verbosity, stack) => {
    const { proc, clock } = setup();
    const { log, lines } = memoryLogger('rewriter', verbosity);
    const m = controllableMain();
    const code = runUntilSignal(m.main, { log, proc, clock });
    proc.emit(event, new Error('lost'));
    expect(await code).toBe(1);
    expect(lines.at(-1)).toMatchObject({ level: 'error', reason: 'lost' });
    expect('stack' in (lines.at(-1) ?? {})).toBe(stack);
    m.release();
    await flush();
  });
});
