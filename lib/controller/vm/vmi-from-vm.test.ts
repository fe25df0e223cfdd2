import { describe, expect, it } from '@jest/globals';
import { onSpec, vm, withStartRequest } from '../../kubevirt/testing/objects.ts';
import {
  addClaim,
  draDevice,
  removeClaim,
  templateClaim,
  withHostDevice,
  withResourceClaim,
} from '../../kubevirt/testing/resource-claims.ts';
import { legacyFirmwareUuid, newVmiFromVm } from './vmi-from-vm.ts';

describe('legacyFirmwareUuid', () => {
  // Reference values from Python's uuid.uuid5(UUID('6a1a24a1-4061-4607-8bf4-a3963d0c5895'), name): the same
  // RFC 4122 name-based SHA-1 UUID as Go's uuid.NewSHA1 that KubeVirt's CalculateLegacyUUID calls.
  it.each([
    ['testvm', '5a9fc181-957e-5c32-9e5a-2de5e9673531'],
    ['vm', 'd633a622-2335-5606-93ae-d432b7c7f2d2'],
  ])('%s → %s', (name, want) => {
    expect(legacyFirmwareUuid(name)).toBe(want);
  });

  it('is a version 5, RFC 4122 variant UUID that depends on the name only', () => {
    const u = legacyFirmwareUuid('another');
    expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(legacyFirmwareUuid('another')).toBe(u);
    expect(legacyFirmwareUuid('another2')).not.toBe(u);
  });
});

describe('newVmiFromVm', () => {
  it('builds the VMI KubeVirt starts for a VM', () => {
    const v = vm((x) => {
      x.metadata.generation = 7;
      x.spec.template.metadata = { labels: { app: 'demo' }, annotations: { note: 'x' } };
    });
    expect(newVmiFromVm(v)).toEqual({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: {
        name: 'testvm',
        namespace: 'default',
        labels: { app: 'demo' },
        annotations: { note: 'x', 'kubevirt.io/vm-generation': '7' },
        finalizers: ['kubevirt.io/virtualMachineControllerFinalize'],
        ownerReferences: [
          {
            apiVersion: 'kubevirt.io/v1',
            kind: 'VirtualMachine',
            name: 'testvm',
            uid: 'vm-uid-1',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        domain: {
          devices: {},
          resources: { requests: { memory: '1Gi' } },
          firmware: { uuid: legacyFirmwareUuid('testvm') },
        },
      },
    });
  });

  it('keeps a firmware UUID the template sets', () => {
    const v = vm((x) => (x.spec.template.spec.domain.firmware = { uuid: 'given' }));
    expect(newVmiFromVm(v).spec.domain.firmware?.uuid).toBe('given');
  });

  it('starts paused for a paused Start request', () => {
    expect(newVmiFromVm(vm(withStartRequest({ paused: 'true' }))).spec.startStrategy).toBe('Paused');
    expect(newVmiFromVm(vm(withStartRequest())).spec.startStrategy).toBeUndefined();
  });

  it('applies pending volume requests to the new VMI', () => {
    const v = vm((x) => {
      x.status = {
        volumeRequests: [
          {
            addVolumeOptions: {
              name: 'hp',
              disk: { name: 'ignored', disk: { bus: 'scsi' } },
              volumeSource: { persistentVolumeClaim: { claimName: 'c' } },
            },
          },
        ],
      };
    });
    const spec = newVmiFromVm(v).spec;
    expect(spec.volumes).toEqual([
      { name: 'hp', persistentVolumeClaim: { claimName: 'c', hotpluggable: true } },
    ]);
    expect(spec.domain.devices.disks).toEqual([{ name: 'hp', disk: { bus: 'scsi' } }]);
  });

  it('applies pending resource claim requests (Deckhouse fork) to the new VMI, after the volume requests', () => {
    const v = vm(
      onSpec(withResourceClaim(templateClaim('gpu0')), withHostDevice(draDevice('gpu0'))),
      (x) => (x.status = { resourceClaimRequests: [addClaim('gpu1'), removeClaim('gpu0')] }),
    );
    const spec = newVmiFromVm(v).spec;
    expect(spec.resourceClaims).toEqual([templateClaim('gpu1')]);
    expect(spec.domain.devices.hostDevices).toEqual([draDevice('gpu1')]);
    expect(v.spec.template.spec.domain.devices.hostDevices).toEqual([draDevice('gpu0')]);
  });

  it('does not share objects with the VM', () => {
    const v = vm();
    const out = newVmiFromVm(v);
    out.spec.domain.devices.disks = [{ name: 'x' }];
    (out.metadata.labels ?? {})['app'] = 'changed';
    expect(v.spec.template.spec.domain.devices.disks).toBeUndefined();
    expect(v.spec.template.metadata?.labels).toEqual({ app: 'demo' });
  });
});
