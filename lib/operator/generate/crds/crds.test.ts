import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import type { JsonSchemaProps } from '../../../kubevirt/schema/openapi.ts';
import { buildInternalCrds, buildKubevirtCrd, type CustomResourceDefinition } from './build.ts';
import { CRD_DEFINITIONS, VIRTUAL_MACHINE_CRD } from './definitions.ts';
import { renderCrdManifests } from './render.ts';

const crds = new Map(buildInternalCrds().map((c) => [c.spec.names.kind, c]));

function crd(kind: string): CustomResourceDefinition {
  const c = crds.get(kind);
  if (c === undefined) throw new Error(`no CRD ${kind}`);
  return c;
}

function schemaAt(c: CustomResourceDefinition, path: string): JsonSchemaProps {
  let node: JsonSchemaProps | undefined = c.spec.versions[0]?.schema.openAPIV3Schema;
  for (const step of path.split('.')) {
    node = step === '[]' ? node?.items : node?.properties?.[step];
  }
  if (node === undefined) throw new Error(`no schema at ${path}`);
  return node;
}

describe('rendered manifests', () => {
  it('parse back to the built CRDs', () => {
    const parsed = [...renderCrdManifests().values()].map((text) => parse(text) as unknown);
    expect(parsed).toEqual(buildInternalCrds());
  });
});

describe('internal CRDs', () => {
  it.each([
    ['InternalVirtualizationVirtualMachine', 'internalvirtualizationvirtualmachines', 'intvirtvm', true],
    [
      'InternalVirtualizationVirtualMachineInstance',
      'internalvirtualizationvirtualmachineinstances',
      'intvirtvmi',
      false,
    ],
    ['InternalVirtualizationKubeVirt', 'internalvirtualizationkubevirts', 'intvirtkv', true],
    [
      'InternalVirtualizationVirtualMachineInstanceMigration',
      'internalvirtualizationvirtualmachineinstancemigrations',
      'intvirtvmim',
      true,
    ],
  ])('%s: names, group, version, status subresource', (kind, plural, shortName, status) => {
    const c = crd(kind);
    expect(c.metadata.name).toBe(`${plural}.internal.virtualization.deckhouse.io`);
    expect(c.spec.group).toBe('internal.virtualization.deckhouse.io');
    expect(c.spec.scope).toBe('Namespaced');
    expect(c.spec.names).toMatchObject({
      kind,
      listKind: `${kind}List`,
      plural,
      singular: kind.toLowerCase(),
      categories: ['intvirt'],
    });
    expect(c.spec.names.shortNames).toContain(shortName);
    expect(c.spec.versions).toHaveLength(1);
    expect(c.spec.versions[0]).toMatchObject({ name: 'v1', served: true, storage: true });
    expect(c.spec.versions[0]?.subresources?.status !== undefined).toBe(status);
    expect(schemaAt(c, 'spec').type).toBe('object');
    expect(c.spec.versions[0]?.schema.openAPIV3Schema.required).toEqual(['spec']);
  });

  it.each([
    ['InternalVirtualizationVirtualMachine', ['Age', 'Status', 'Ready']],
    [
      'InternalVirtualizationVirtualMachineInstance',
      ['Age', 'Phase', 'IP', 'NodeName', 'Ready', 'Live-Migratable', 'Paused'],
    ],
    ['InternalVirtualizationKubeVirt', ['Age', 'Phase']],
    ['InternalVirtualizationVirtualMachineInstanceMigration', ['Phase', 'VMI']],
  ])('%s printer columns', (kind, columns) => {
    const cols = crd(kind).spec.versions[0]?.additionalPrinterColumns ?? [];
    expect(cols.map((c) => c.name)).toEqual(columns);
  });

  it('points the VM Status column at printableStatus and Ready at the Ready condition', () => {
    const cols = crd('InternalVirtualizationVirtualMachine').spec.versions[0]?.additionalPrinterColumns ?? [];
    expect(cols.find((c) => c.name === 'Status')?.jsonPath).toBe('.status.printableStatus');
    expect(cols.find((c) => c.name === 'Ready')?.jsonPath).toBe(
      ".status.conditions[?(@.type=='Ready')].status",
    );
  });

  it.each([
    [
      'spec.runStrategy',
      { enum: ['Always', 'Halted', 'Manual', 'RerunOnFailure', 'Once', 'WaitAsReceiver'] },
    ],
    ['spec.template.spec.domain.memory.guest', { 'x-kubernetes-int-or-string': true }],
    ['spec.template.spec.domain.devices.disks', { type: 'array' }],
    ['spec.template.spec.domain.devices.disks.[].disk.bus', { enum: ['virtio', 'sata', 'scsi', 'usb'] }],
    ['spec.template.spec.domain.cpu.sockets', { type: 'integer', format: 'int32' }],
    ['spec.template.spec.domain.resources.requests', { additionalProperties: expect.anything() }],
    ['spec.template.spec.domain.firmware.kernelBoot.container', { required: ['image'] }],
    ['spec.template.spec.volumes.[].containerDisk', { required: ['image'] }],
    ['spec.template.spec.volumes.[].persistentVolumeClaim', { required: ['claimName'] }],
    ['spec.template.spec.domain.clock', { 'x-kubernetes-preserve-unknown-fields': true }],
    ['spec.template.spec.terminationGracePeriodSeconds', { type: 'integer', format: 'int64' }],
    ['status.printableStatus', { default: 'Stopped' }],
    ['status.startFailure', { nullable: true }],
    ['status.volumeRequests.[].addVolumeOptions', { required: ['name', 'disk', 'volumeSource'] }],
    ['status.stateChangeRequests.[].action', { enum: ['Start', 'Stop'] }],
  ])('VM schema types %s', (path, expected) => {
    expect(schemaAt(crd('InternalVirtualizationVirtualMachine'), path)).toMatchObject(expected);
  });

  it.each([
    ['status.phase', { enum: expect.arrayContaining(['Pending', 'Running', 'Succeeded', 'Failed']) }],
    ['status.interfaces.[].ipAddress', { type: 'string' }],
    ['status.volumeStatus.[]', { required: ['name', 'target'] }],
    ['status.guestOSInfo.prettyName', { type: 'string' }],
    ['status.launcherContainerImageVersion', { type: 'string' }],
    ['status.migrationState', { 'x-kubernetes-preserve-unknown-fields': true }],
  ])('VMI schema types %s', (path, expected) => {
    expect(schemaAt(crd('InternalVirtualizationVirtualMachineInstance'), path)).toMatchObject(expected);
  });

  it('renames only names: the kubevirt.io CRD and the internal one have the same schema and columns', () => {
    for (const def of CRD_DEFINITIONS) {
      const original = buildKubevirtCrd(def);
      const internal = crd(`InternalVirtualization${def.gvr.kind}`);
      expect(internal.spec.versions).toEqual(original.spec.versions);
    }
  });

  it('builds the kubevirt.io CRD with KubeVirt names', () => {
    const vm = buildKubevirtCrd(VIRTUAL_MACHINE_CRD);
    expect(vm.metadata.name).toBe('virtualmachines.kubevirt.io');
    expect(vm.spec.names).toEqual({
      kind: 'VirtualMachine',
      listKind: 'VirtualMachineList',
      plural: 'virtualmachines',
      singular: 'virtualmachine',
      shortNames: ['vm', 'vms'],
      categories: ['all'],
    });
  });
});
