import { describe, expect, it } from '@jest/globals';
import { toDomain } from '../converter/index.ts';
import { testCtx, testVmi, TEST_UID } from '../converter/testing/vmi.ts';
import { definedMachine, domainJson, withMachine } from './domain-json.ts';
import { NON_EXISTENT } from './state.ts';

const id = { name: 'testvmi', namespace: 'default', uid: TEST_UID };

function convertedDomain(): ReturnType<typeof toDomain> {
  const vmi = testVmi((spec) => {
    spec.domain.firmware = { uuid: TEST_UID };
    spec.domain.devices.disks = [{ name: 'root', disk: { bus: 'virtio' } }];
    spec.volumes = [{ name: 'root', persistentVolumeClaim: { claimName: 'pvc' } }];
  });
  return toDomain(vmi, testCtx({ emulation: true }));
}

describe('domainJson (KubeVirt api.Domain as encoding/json writes it)', () => {
  it('inlines TypeMeta, keeps ObjectMeta, Spec and Status with Go field names', () => {
    const d = domainJson({
      id,
      spec: convertedDomain(),
      state: { status: 'Running', reason: 'Unpaused' },
    });
    expect(d.kind).toBe('Domain');
    expect(d.apiVersion).toBe('1.2.2');
    expect(d.ObjectMeta).toEqual({
      name: 'testvmi',
      namespace: 'default',
      uid: TEST_UID,
      creationTimestamp: null,
    });
    expect(d.Status).toMatchObject({
      Status: 'Running',
      Reason: 'Unpaused',
      FSFreezeStatus: { Status: '' },
    });
    expect(d.Spec).toMatchObject({
      Type: 'qemu',
      Name: 'default_testvmi',
      UUID: TEST_UID,
      Memory: { Value: 64 * 1024 * 1024, Unit: 'b' },
      OS: { Type: { OS: 'hvm', Arch: 'x86_64', Machine: 'q35' } },
      Metadata: { KubeVirt: { UID: TEST_UID } },
      CPU: { Mode: 'custom', Model: 'qemu64' },
    });
    expect(d.Spec.Devices.Disks?.[0]).toMatchObject({
      Device: 'disk',
      Type: 'file',
      Source: { File: '/var/run/kubevirt-private/vmi-disks/root/disk.img' },
      Target: { Bus: 'virtio', Device: 'vda' },
      Alias: { Name: 'root', UserDefined: true },
    });
  });

  it('carries guest facts into Status', () => {
    const d = domainJson({
      id,
      spec: undefined,
      state: NON_EXISTENT,
      extras: { fsFreezeStatus: 'frozen', osInfo: { Id: 'debian' } },
    });
    expect(d.Status).toMatchObject({
      Status: 'NoState',
      Reason: 'NonExistent',
      FSFreezeStatus: { Status: 'frozen' },
    });
    expect(d.Status.OSInfo).toMatchObject({ Id: 'debian', Name: '' });
    expect(d.Spec).toEqual({ Name: 'default_testvmi', Devices: {} });
  });
});

describe('the machine type libvirt defined', () => {
  it.each([
    [
      `<domain type='qemu'><os><type arch='x86_64' machine='pc-q35-7.2'>hvm</type></os></domain>`,
      'pc-q35-7.2',
    ],
    ['<os><type machine="pc-i440fx-7.2" arch="x86_64">hvm</type></os>', 'pc-i440fx-7.2'],
    ["<os><type arch='x86_64'>hvm</type></os>", undefined],
    ["<devices><input type='tablet' bus='usb'/></devices>", undefined],
  ])('%s → %s', (xml, machine) => {
    expect(definedMachine(xml)).toBe(machine);
  });

  it('is reported in place of the alias asked for, and the spec is otherwise the same', () => {
    const spec = convertedDomain();
    expect(spec.os.type.machine).toBe('q35');
    const reported = withMachine(spec, 'pc-q35-7.2');
    expect(domainJson({ id, spec: reported, state: NON_EXISTENT }).Spec.OS?.Type.Machine).toBe('pc-q35-7.2');
    expect({ ...reported, os: spec.os }).toEqual(spec);
    expect(withMachine(spec, undefined)).toBe(spec);
  });
});
