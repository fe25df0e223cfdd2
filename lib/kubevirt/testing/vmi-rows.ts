/** Table rows for the VMI defaulting tests: default a VMI under cluster overrides, select a part, compare. */
import { expect } from '@jest/globals';
import { DEFAULT_CLUSTER_DEFAULTS, type ClusterDefaults } from '../defaults/cluster.ts';
import { withVmiDefaults } from '../defaults/vmi.ts';
import type { VirtualMachineInstance } from '../v1/objects.ts';

const FIRMWARE_UUID = '11111111-2222-3333-4444-555555555555';

export type Row = [
  name: string,
  vmi: VirtualMachineInstance,
  cfg: Partial<ClusterDefaults>,
  select: (v: VirtualMachineInstance) => unknown,
  expected: unknown,
];

export const cfg = (over: Partial<ClusterDefaults>): ClusterDefaults => ({
  ...DEFAULT_CLUSTER_DEFAULTS,
  ...over,
});
export const defaulted = (
  vmi: VirtualMachineInstance,
  over: Partial<ClusterDefaults> = {},
): VirtualMachineInstance => withVmiDefaults(vmi, cfg(over), { firmwareUuid: FIRMWARE_UUID });

/** One table row: default the VMI under the cluster overrides, select a part, compare. */
export const checkRow = (...row: Row): void => {
  const [, vmi, over, select, expected] = row;
  expect(select(defaulted(vmi, over))).toEqual(expected);
};

export const domain = (v: VirtualMachineInstance): VirtualMachineInstance['spec']['domain'] => v.spec.domain;
