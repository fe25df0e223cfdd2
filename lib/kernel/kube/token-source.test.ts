import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../clock.ts';
import { FileTokenSource, staticTokenSource } from './token-source.ts';

function fakeFile(initial: string): {
  read: (p: string) => Promise<string>;
  set: (v: string | Error) => void;
  reads: () => number;
} {
  let value: string | Error = initial;
  let reads = 0;
  return {
    read: (): Promise<string> => {
      reads++;
      return value instanceof Error ? Promise.reject(value) : Promise.resolve(value);
    },
    set: (v): void => {
      value = v;
    },
    reads: (): number => reads,
  };
}

describe('FileTokenSource', () => {
  it('caches the token and re-reads it after the refresh interval', async () => {
    const clock = new FakeClock();
    const file = fakeFile('one\n');
    const src = new FileTokenSource('/t', { clock, refreshMs: 60_000, read: file.read });
    expect(await src.token()).toBe('one');
    file.set('two');
    clock.advance(59_999);
    expect(await src.token()).toBe('one');
    clock.advance(1);
    expect(await src.token()).toBe('two');
    expect(file.reads()).toBe(2);
  });

  it('re-reads at once after invalidate (a 401)', async () => {
    const clock = new FakeClock();
    const file = fakeFile('old');
    const src = new FileTokenSource('/t', { clock, read: file.read });
    await src.token();
    file.set('rotated');
    src.invalidate();
    expect(await src.token()).toBe('rotated');
  });

  it('shares one read between concurrent callers', async () => {
    const clock = new FakeClock();
    const file = fakeFile('x');
    const src = new FileTokenSource('/t', { clock, read: file.read });
    expect(await Promise.all([src.token(), src.token(), src.token()])).toEqual(['x', 'x', 'x']);
    expect(file.reads()).toBe(1);
  });

  it('keeps the last token when the file briefly disappears, fails when it never had one', async () => {
    const clock = new FakeClock();
    const file = fakeFile('kept');
    const src = new FileTokenSource('/t', { clock, read: file.read });
    await src.token();
    file.set(new Error('ENOENT'));
    src.invalidate();
    expect(await src.token()).toBe('kept');

    const empty = new FileTokenSource('/missing', { clock, read: fakeFile('').read });
    const broken = fakeFile('');
    broken.set(new Error('ENOENT'));
    const never = new FileTokenSource('/missing', { clock, read: broken.read });
    expect(await empty.token()).toBe('');
    await expect(never.token()).rejects.toMatchObject({ code: 'KV_ERR_CONFIG' });
  });
});

describe('FileTokenSource: a token that cannot go into a header', () => {
  it.each([
    ['a line break inside', 'kv-secret-9d1\nX-Injected: 1'],
    ['a carriage return inside', 'kv-secret-9d1\rX'],
    ['a NUL byte', 'kv-secret-9d1\u0000'],
  ])('is refused with %s, naming the file and not the token', async (_name, text) => {
    const src = new FileTokenSource('/var/run/t', { clock: new FakeClock(), read: fakeFile(text).read });
    const err = await src.token().then(
      () => undefined,
      (e: unknown) => e as Error & { code?: string },
    );
    expect(err?.code).toBe('KV_ERR_CONFIG');
    expect(err?.message).toMatch(/^token file \/var\/run\/t: holds characters an HTTP header cannot carry/);
    expect(err?.message).not.toContain('kv-secret-9d1');
  });
});

describe('staticTokenSource', () => {
  it('returns its token', async () => {
    expect(await staticTokenSource('s').token()).toBe('s');
    expect(await staticTokenSource(undefined).token()).toBeUndefined();
  });
});
