import { describe, expect, it } from '@jest/globals';
import type { Memory, ResourceList } from '../../kubevirt/index.ts';
import { withSpec } from '../../kubevirt/testing/builders.ts';
import { memoryConfigurator } from './memory.ts';
import { runConfigurator, testVmi } from './testing/vmi.ts';

const MiB = 2 ** 20;

function vmiWith(
  memory: Memory | undefined,
  requests?: ResourceList,
  limits?: ResourceList,
): ReturnType<typeof testVmi> {
  return testVmi(
    withSpec((s) => {
      if (memory === undefined) delete s.domain.memory;
      else s.domain.memory = memory;
      s.domain.resources = { ...(requests && { requests }), ...(limits && { limits }) };
    }),
  );
}

describe('memoryConfigurator', () => {
  interface Row {
    readonly memory?: Memory;
    readonly requests?: ResourceList;
    readonly limits?: ResourceList;
  }

  it.each<[string, Row, number]>([
    [
      'guest wins over requests and limits',
      { memory: { guest: '128Mi' }, requests: { memory: '1Gi' }, limits: { memory: '2Gi' } },
      128 * MiB,
    ],
    [
      'requests when no guest',
      { memory: {}, requests: { memory: '256Mi' }, limits: { memory: '2Gi' } },
      256 * MiB,
    ],
    ['limits when neither', { limits: { memory: '64Mi' } }, 64 * MiB],
    ['decimal units', { memory: { guest: '100M' } }, 100_000_000],
    ['plain bytes', { memory: { guest: 67108864 } }, 64 * MiB],
  ])('%s', (_, row, bytes) => {
    expect(runConfigurator(memoryConfigurator, vmiWith(row.memory, row.requests, row.limits)).memory).toBe(
      bytes,
    );
  });

  it.each<[string, Row, string, RegExp]>([
    ['no memory at all', {}, 'spec.domain.memory.guest', /no memory requested/],
    [
      'less than 1M',
      { memory: { guest: '512Ki' } },
      'spec.domain.memory.guest',
      /greater than or equal to 1M/,
    ],
    [
      'a bad quantity',
      { requests: { memory: 'lots' } },
      'spec.domain.resources.requests.memory',
      /not a valid/,
    ],
  ])('%s → error at %s', (_, row, field, message) => {
    expect(() => runConfigurator(memoryConfigurator, vmiWith(row.memory, row.requests))).toThrow(
      expect.objectContaining({ field, message: expect.stringMatching(message) }),
    );
  });

  it('ignores maxGuest (no memory hotplug yet)', () => {
    const d = runConfigurator(memoryConfigurator, vmiWith({ guest: '1Gi', maxGuest: '4Gi' }));
    expect(d.memory).toBe(1024 * MiB);
  });
});
