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

describe('staticTokenSource', () => {
  it('returns its token', async () => {
    expect(await staticTokenSource('s').token()).toBe('s');
    expect(await staticTokenSource(undefined).token()).toBeUndefined();
  });
});
