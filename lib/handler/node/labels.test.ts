import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { labelPatch, readNodeLabels } from './labels.ts';

describe('labelPatch', () => {
  it.each<
    [
      string,
      Record<string, string> | undefined,
      Record<string, string>,
      Record<string, string | null> | undefined,
    ]
  >([
    [
      'adds what the labeller found',
      { app: 'x' },
      { 'cpu-model.node.kubevirt.io/qemu64': 'true' },
      { 'cpu-model.node.kubevirt.io/qemu64': 'true' },
    ],
    [
      'removes a model no longer there, keeps foreign labels',
      { 'cpu-model.node.kubevirt.io/Haswell': 'true', app: 'x' },
      {},
      { 'cpu-model.node.kubevirt.io/Haswell': null },
    ],
    [
      'nothing to change',
      { 'machine-type.node.kubevirt.io/q35': 'true' },
      { 'machine-type.node.kubevirt.io/q35': 'true' },
      undefined,
    ],
    [
      'a changed value',
      { 'cpu-timer.node.kubevirt.io/tsc-frequency': '1' },
      { 'cpu-timer.node.kubevirt.io/tsc-frequency': '2' },
      { 'cpu-timer.node.kubevirt.io/tsc-frequency': '2' },
    ],
    [
      'no labels yet',
      undefined,
      { 'hyperv.node.kubevirt.io/vpindex': 'true' },
      { 'hyperv.node.kubevirt.io/vpindex': 'true' },
    ],
  ])('%s', (_case, current, wanted, patch) => {
    expect(labelPatch(current, wanted)).toEqual(patch);
  });
});

describe('readNodeLabels', () => {
  it('reads node-labels.json, keeping only labeller labels; undefined without the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kv-labels-'));
    try {
      expect(await readNodeLabels(dir)).toBeUndefined();
      writeFileSync(
        join(dir, 'node-labels.json'),
        JSON.stringify({
          'cpu-model.node.kubevirt.io/qemu64': 'true',
          'kubernetes.io/hostname': 'evil',
          n: 1,
        }),
      );
      expect(await readNodeLabels(dir)).toEqual({ 'cpu-model.node.kubevirt.io/qemu64': 'true' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
