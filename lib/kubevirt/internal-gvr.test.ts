import { describe, expect, it } from '@jest/globals';
import {
  KUBEVIRTS,
  VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from './gvr.ts';
import {
  INTERNAL_KUBEVIRTS,
  INTERNAL_VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  INTERNAL_VIRTUAL_MACHINE_INSTANCES,
  INTERNAL_VIRTUAL_MACHINES,
  internalGvr,
} from './internal-gvr.ts';
import { subresourcePath } from './gvr.ts';

const group = 'internal.virtualization.deckhouse.io';

describe('internal GVRs derived from the rewrite rules', () => {
  it.each([
    [
      VIRTUAL_MACHINES,
      INTERNAL_VIRTUAL_MACHINES,
      'internalvirtualizationvirtualmachines',
      'InternalVirtualizationVirtualMachine',
    ],
    [
      VIRTUAL_MACHINE_INSTANCES,
      INTERNAL_VIRTUAL_MACHINE_INSTANCES,
      'internalvirtualizationvirtualmachineinstances',
      'InternalVirtualizationVirtualMachineInstance',
    ],
    [KUBEVIRTS, INTERNAL_KUBEVIRTS, 'internalvirtualizationkubevirts', 'InternalVirtualizationKubeVirt'],
    [
      VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
      INTERNAL_VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
      'internalvirtualizationvirtualmachineinstancemigrations',
      'InternalVirtualizationVirtualMachineInstanceMigration',
    ],
  ])('%o', (original, internal, resource, kind) => {
    expect(original.group).toBe('kubevirt.io');
    expect(internal).toEqual({ group, version: 'v1', resource, kind, namespaced: true });
  });

  it('refuses a resource no rule renames', () => {
    const gvr = { group: 'example.com', version: 'v1', resource: 'things', kind: 'Thing', namespaced: true };
    expect(() => internalGvr(gvr)).toThrow(/no rewrite rule renames things.example.com/);
  });
});

describe('subresourcePath', () => {
  it('builds the subresources.kubevirt.io path with escaped names', () => {
    expect(subresourcePath({ resource: 'virtualmachines', namespace: 'ns', name: 'vm 1' }, 'start')).toBe(
      '/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachines/vm%201/start',
    );
  });
});
