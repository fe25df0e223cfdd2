import { describe, expect, it } from '@jest/globals';
import { bandwidthMiB, parseMigrationOptions } from './options.ts';

const json = (v: unknown): Uint8Array => Buffer.from(JSON.stringify(v));

describe('parseMigrationOptions', () => {
  it('reads KubeVirt MigrationOptions as Go marshals them', () => {
    const o = parseMigrationOptions(
      json({
        Bandwidth: '64Mi',
        ProgressTimeout: 150,
        CompletionTimeoutPerGiB: 800,
        UnsafeMigration: false,
        AllowAutoConverge: true,
        AllowPostCopy: false,
        ParallelMigrationThreads: 8,
        AllowWorkloadDisruption: true,
      }),
    );
    expect(o).toEqual({
      bandwidthMiB: 64,
      progressTimeoutSeconds: 150,
      completionTimeoutPerGiBSeconds: 800,
      unsafe: false,
      allowAutoConverge: true,
      allowPostCopy: false,
      allowWorkloadDisruption: true,
      parallelThreads: 8,
    });
  });

  it('defaults what is absent or null: unlimited, never timed out, switches off', () => {
    expect(parseMigrationOptions(json({ Bandwidth: '0', ParallelMigrationThreads: null }))).toEqual({
      bandwidthMiB: 0,
      progressTimeoutSeconds: 0,
      completionTimeoutPerGiBSeconds: 0,
      unsafe: false,
      allowAutoConverge: false,
      allowPostCopy: false,
      allowWorkloadDisruption: false,
    });
  });

  it('keeps the target Pod root of side-by-side launchers', () => {
    expect(parseMigrationOptions(json({ TargetPodRoot: '/tmp/kvl-b' })).targetPodRoot).toBe('/tmp/kvl-b');
  });

  it.each<[string, Uint8Array | undefined, RegExp]>([
    ['no options', undefined, /migration options: {2}are missing/],
    ['not JSON', Buffer.from('{'), /not JSON/],
    ['an array', json([]), /must be a JSON object/],
    ['a bad quantity', json({ Bandwidth: 'fast' }), /Bandwidth is not a quantity/],
    ['a negative quantity', json({ Bandwidth: '-1Mi' }), /Bandwidth/],
    ['a bandwidth object', json({ Bandwidth: {} }), /Bandwidth must be a quantity/],
    ['a fractional timeout', json({ ProgressTimeout: 1.5 }), /ProgressTimeout must be a whole number/],
    ['a negative timeout', json({ CompletionTimeoutPerGiB: -1 }), /CompletionTimeoutPerGiB must be a whole/],
    ['a string switch', json({ AllowPostCopy: 'yes' }), /AllowPostCopy must be true or false/],
    [
      'zero threads',
      json({ ParallelMigrationThreads: 0 }),
      /ParallelMigrationThreads must be a whole number ≥ 1/,
    ],
    ['a relative root', json({ TargetPodRoot: 'tmp/x' }), /TargetPodRoot must be an absolute path/],
  ])('refuses %s with a clear message', (_name, bytes, message) => {
    expect(() => parseMigrationOptions(bytes)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_DECODE', message: expect.stringMatching(message) }),
    );
  });
});

describe('bandwidthMiB (QuantityToMebiByte)', () => {
  it.each([
    [0, 0],
    [1, 1],
    [1024 * 1024 - 1, 1],
    [1024 * 1024, 1],
    [1.4 * 1024 * 1024, 1],
    [1.5 * 1024 * 1024, 2],
    [64 * 1024 * 1024, 64],
  ])('%d bytes/s is %d MiB/s', (bytes, mib) => {
    expect(bandwidthMiB(bytes)).toBe(mib);
  });
});
