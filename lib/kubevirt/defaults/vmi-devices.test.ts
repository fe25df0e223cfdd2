import { describe, expect, it } from '@jest/globals';
import { StatusError } from '../../kernel/errors/errors.ts';
import {
  newVmi,
  withArch,
  withDisk,
  withInterface,
  withRequests,
  withSpec,
  withVolume,
} from '../testing/builders.ts';
import { cfg, checkRow, defaulted, domain, type Row } from '../testing/vmi-rows.ts';
import type { VirtualMachineInstance } from '../v1/objects.ts';
import { DEFAULT_CLUSTER_DEFAULTS, type ClusterDefaults } from './cluster.ts';
import { terminationGracePeriodSeconds, withVmiCreateDefaults } from './vmi.ts';

describe('withVmiDefaults: disks, volumes, devices', () => {
  const containerDisk = (image: string): VirtualMachineInstance =>
    newVmi(withVolume({ name: 'root', containerDisk: { image } }));

  it.each<Row>([
    [
      'a volume without a disk gets one (SATA on amd64, as KubeVirt v1.6)',
      newVmi(withVolume({ name: 'root', emptyDisk: { capacity: '1Gi' } })),
      {},
      (v) => domain(v).devices.disks,
      [{ name: 'root', disk: { bus: 'sata' } }],
    ],
    [
      'virtio on arm64',
      newVmi(withArch('arm64'), withDisk({ name: 'd' })),
      {},
      (v) => domain(v).devices.disks,
      [{ name: 'd', disk: { bus: 'virtio' } }],
    ],
    [
      'virtio on s390x',
      newVmi(withArch('s390x'), withDisk({ name: 'd', lun: {} })),
      {},
      (v) => domain(v).devices.disks,
      [{ name: 'd', lun: { bus: 'virtio' } }],
    ],
    [
      'a bus set on the disk stays',
      newVmi(withDisk({ name: 'd', disk: { bus: 'virtio' } })),
      {},
      (v) => domain(v).devices.disks,
      [{ name: 'd', disk: { bus: 'virtio' } }],
    ],
    [
      'CD-ROMs are read-only with a closed tray',
      newVmi(withDisk({ name: 'cd', cdrom: {} })),
      {},
      (v) => domain(v).devices.disks,
      [{ name: 'cd', cdrom: { bus: 'sata', readonly: true, tray: 'closed' } }],
    ],
    [
      "a filesystem counts as the volume's device",
      newVmi(
        withVolume({ name: 'fs', persistentVolumeClaim: { claimName: 'c' } }),
        withSpec((s) => (s.domain.devices.filesystems = [{ name: 'fs', virtiofs: {} }])),
      ),
      {},
      (v) => domain(v).devices.disks,
      undefined,
    ],
    [
      'untagged image pulls Always',
      containerDisk('registry/img'),
      {},
      (v) => v.spec.volumes?.[0]?.containerDisk?.imagePullPolicy,
      'Always',
    ],
    [
      ':latest pulls Always',
      containerDisk('registry/img:latest'),
      {},
      (v) => v.spec.volumes?.[0]?.containerDisk?.imagePullPolicy,
      'Always',
    ],
    [
      'a tag pulls IfNotPresent',
      containerDisk('registry/img:v1'),
      {},
      (v) => v.spec.volumes?.[0]?.containerDisk?.imagePullPolicy,
      'IfNotPresent',
    ],
    [
      'a digest pulls IfNotPresent',
      containerDisk('registry/img@sha256:abc'),
      {},
      (v) => v.spec.volumes?.[0]?.containerDisk?.imagePullPolicy,
      'IfNotPresent',
    ],
    [
      'tablet input on USB',
      newVmi(withSpec((s) => (s.domain.devices.inputs = [{ name: 'tablet', type: 'tablet' }]))),
      {},
      (v) => domain(v).devices.inputs,
      [{ name: 'tablet', type: 'tablet', bus: 'usb' }],
    ],
    [
      'watchdog model i6300esb resetting on amd64',
      newVmi(withSpec((s) => (s.domain.devices.watchdog = { name: 'w' }))),
      {},
      (v) => domain(v).devices.watchdog,
      { name: 'w', i6300esb: { action: 'reset' } },
    ],
    [
      'probe timings',
      newVmi(withSpec((s) => (s.readinessProbe = { httpGet: { port: 80 }, periodSeconds: 5 }))),
      {},
      (v) => v.spec.readinessProbe,
      {
        httpGet: { port: 80 },
        periodSeconds: 5,
        timeoutSeconds: 1,
        successThreshold: 1,
        failureThreshold: 3,
      },
    ],
  ])('%s', checkRow);
});

describe('withVmiDefaults: network', () => {
  it.each<Row>([
    [
      'bridge on the pod network',
      newVmi(),
      {},
      (v) => [domain(v).devices.interfaces, v.spec.networks],
      [[{ name: 'default', bridge: {} }], [{ name: 'default', pod: {} }]],
    ],
    [
      'masquerade when the cluster says so',
      newVmi(),
      { defaultNetworkInterface: 'masquerade' },
      (v) => domain(v).devices.interfaces,
      [{ name: 'default', masquerade: {} }],
    ],
    [
      'nothing added when the VMI has interfaces',
      newVmi(withInterface({ name: 'n', masquerade: {} }, { name: 'n', pod: {} })),
      {},
      (v) => [domain(v).devices.interfaces?.length, v.spec.networks?.length],
      [1, 1],
    ],
    [
      'nothing added without autoattachPodInterface',
      newVmi(withSpec((s) => (s.domain.devices.autoattachPodInterface = false))),
      {},
      (v) => [domain(v).devices.interfaces, v.spec.networks],
      [undefined, undefined],
    ],
  ])('%s', checkRow);

  it.each<[string, Partial<ClusterDefaults>, RegExp]>([
    ['bridge not permitted', { permitBridgeInterfaceOnPodNetwork: false }, /bridge interface is not enabled/],
    ['slirp', { defaultNetworkInterface: 'slirp' }, /slirp interface is deprecated/],
  ])('rejects the default interface when %s', (_name, over, message) => {
    let caught: unknown;
    try {
      defaulted(newVmi(), over);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StatusError);
    expect((caught as StatusError).httpCode).toBe(400);
    expect((caught as StatusError).message).toMatch(message);
  });
});

describe('withVmiDefaults as a pure function', () => {
  it('does not touch its input and gives the same answer twice', () => {
    const vmi = newVmi(
      withVolume({ name: 'root', containerDisk: { image: 'img' } }),
      withRequests({ memory: '1Gi' }),
    );
    const before = structuredClone(vmi);
    const a = defaulted(vmi);
    expect(vmi).toEqual(before);
    expect(defaulted(vmi)).toEqual(a);
  });

  it('is idempotent', () => {
    const once = defaulted(
      newVmi(withRequests({ memory: '2Gi', cpu: '2' }), withDisk({ name: 'd', cdrom: {} })),
    );
    expect(defaulted(once)).toEqual(once);
  });
});

describe('withVmiCreateDefaults', () => {
  const now = '2026-11-29T12:00:00Z';

  it('adds the finalizer once, phase Pending with its time, and the non-root user', () => {
    const vmi = newVmi();
    vmi.metadata.finalizers = ['other'];
    const out = withVmiCreateDefaults(vmi, DEFAULT_CLUSTER_DEFAULTS, { now });
    expect(out.metadata.finalizers).toEqual(['other', 'foregroundDeleteVirtualMachine']);
    expect(out.status?.phase).toBe('Pending');
    expect(out.status?.phaseTransitionTimestamps).toEqual([
      { phase: 'Pending', phaseTransitionTimestamp: now },
    ]);
    expect(out.status?.runtimeUser).toBe(107);
    const again = withVmiCreateDefaults(out, DEFAULT_CLUSTER_DEFAULTS, { now });
    expect(again.metadata.finalizers).toEqual(['other', 'foregroundDeleteVirtualMachine']);
  });

  it('runs as root when the cluster allows it', () => {
    expect(withVmiCreateDefaults(newVmi(), cfg({ root: true }), { now }).status?.runtimeUser).toBe(0);
  });
});

describe('terminationGracePeriodSeconds', () => {
  it.each<[number | undefined, number]>([
    [undefined, 30],
    [0, 0],
    [180, 180],
  ])('%p → %p', (value, expected) => {
    expect(
      terminationGracePeriodSeconds(value === undefined ? {} : { terminationGracePeriodSeconds: value }),
    ).toBe(expected);
  });
});
