import { describe, expect, it } from '@jest/globals';
import type { KubeVirt } from '../kubevirt/index.ts';
import { clusterKubeVirt } from './cluster-config.ts';

const kv = (name: string, created: string, deleting = false): KubeVirt => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'KubeVirt',
  metadata: {
    name,
    namespace: 'd8-virtualization',
    creationTimestamp: created,
    ...(deleting && { deletionTimestamp: '2026-01-02T00:00:00Z' }),
  },
  spec: {},
});

describe('clusterKubeVirt', () => {
  it.each<[string, KubeVirt[], string | undefined]>([
    ['none', [], undefined],
    ['one', [kv('config', '2026-01-01T00:00:00Z')], 'config'],
    ['the oldest of several', [kv('b', '2026-01-01T00:00:05Z'), kv('a', '2026-01-01T00:00:01Z')], 'a'],
    ['same age: by name', [kv('b', '2026-01-01T00:00:00Z'), kv('a', '2026-01-01T00:00:00Z')], 'a'],
    ['one being deleted does not count', [kv('a', '2026-01-01T00:00:00Z', true)], undefined],
    [
      'the oldest not being deleted',
      [kv('a', '2026-01-01T00:00:00Z', true), kv('b', '2026-01-01T00:00:09Z')],
      'b',
    ],
  ])('%s', (_n, list, want) => {
    expect(clusterKubeVirt(list)?.metadata.name).toBe(want);
  });
});
