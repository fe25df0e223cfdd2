import { describe, expect, it } from '@jest/globals';
import type { AllocateResponse } from './kubelet-api.ts';
import {
  allocateResponse,
  deviceList,
  devicePermissions,
  devicePluginSpecs,
  DEVICE_NODES,
  healthOf,
  type DevicePluginSpec,
  type SpecOptions,
} from './specs.ts';

const P = 'devices.virtualization.deckhouse.io/';

const opts: SpecOptions = {
  devices: { kvm: '/t/dev/kvm', tun: '/t/dev/net/tun', vhostNet: '/t/dev/vhost-net' },
  permissions: 'rw',
  prHelper: { hostDir: '/r/var/run/kubevirt/daemons/pr', containerDir: '/var/run/kubevirt/daemons/pr' },
};

const byName = (name: string): DevicePluginSpec => {
  const s = devicePluginSpecs(opts).find((x) => x.name === name);
  if (s === undefined) throw new Error(`no ${name} plugin`);
  return s;
};

describe('devicePluginSpecs', () => {
  it.each([
    {
      name: 'kvm',
      resourceName: `${P}kvm`,
      endpoint: 'kubevirt-kvm.sock',
      healthPath: '/t/dev/kvm',
      preOpen: false,
    },
    {
      name: 'tun',
      resourceName: `${P}tun`,
      endpoint: 'kubevirt-tun.sock',
      healthPath: '/t/dev/net/tun',
      preOpen: true,
    },
    {
      name: 'vhost-net',
      resourceName: `${P}vhost-net`,
      endpoint: 'kubevirt-vhost-net.sock',
      healthPath: '/t/dev/vhost-net',
      preOpen: true,
    },
    {
      name: 'pr-helper',
      resourceName: `${P}pr-helper`,
      endpoint: 'kubevirt-pr-helper.sock',
      healthPath: '/r/var/run/kubevirt/daemons/pr/pr-helper.sock',
      preOpen: false,
    },
  ])('$name: $resourceName on $endpoint, healthy while $healthPath exists', ({ name, ...want }) => {
    expect(byName(name)).toMatchObject(want);
  });

  it('runs pr-helper only when its dir is given', () => {
    const rest: SpecOptions = { devices: opts.devices, permissions: opts.permissions };
    expect(devicePluginSpecs(rest).map((s) => s.name)).toEqual(['kvm', 'tun', 'vhost-net']);
    expect(devicePluginSpecs(opts).map((s) => s.name)).toEqual(['kvm', 'tun', 'vhost-net', 'pr-helper']);
  });
});

describe('health and device list', () => {
  it.each([
    [true, 'Healthy'],
    [false, 'Unhealthy'],
  ])('present=%s → %s', (present, want) => {
    expect(healthOf(present)).toBe(want);
  });

  it.each([
    [false, 'rw'],
    [true, 'rwm'],
  ])('cgroup v2 %s → permissions %s', (v2, want) => {
    expect(devicePermissions(v2)).toBe(want);
  });

  it('lists count devices <name>0… with one health', () => {
    const list = deviceList('kvm', 1000, 'Unhealthy');
    expect(list).toHaveLength(1000);
    expect(list[0]).toEqual({ ID: 'kvm0', health: 'Unhealthy', topology: undefined });
    expect(list[999]?.ID).toBe('kvm999');
    expect(new Set(list.map((d) => d.health))).toEqual(new Set(['Unhealthy']));
    expect(deviceList('tun', 0, 'Healthy')).toEqual([]);
  });
});

const empty = { envs: {}, annotations: {}, cdiDevices: [] };

describe('allocateResponse', () => {
  it.each<[string, string[][], AllocateResponse]>([
    [
      'tun',
      [['tun3']],
      {
        containerResponses: [
          {
            ...empty,
            mounts: [],
            devices: [{ hostPath: '/t/dev/net/tun', containerPath: DEVICE_NODES.tun, permissions: 'rw' }],
          },
        ],
      },
    ],
    [
      'kvm',
      [['kvm0'], ['kvm1', 'kvm2']],
      {
        containerResponses: [0, 1].map(() => ({
          ...empty,
          mounts: [],
          devices: [{ hostPath: '/t/dev/kvm', containerPath: '/dev/kvm', permissions: 'rw' }],
        })),
      },
    ],
    [
      'pr-helper',
      [['pr-helper0']],
      {
        containerResponses: [
          {
            ...empty,
            devices: [],
            mounts: [
              {
                hostPath: '/r/var/run/kubevirt/daemons/pr',
                containerPath: '/var/run/kubevirt/daemons/pr',
                readOnly: false,
              },
            ],
          },
        ],
      },
    ],
    ['vhost-net', [], { containerResponses: [] }],
  ])('%s for containers %j', (name, ids, want) => {
    const req = { containerRequests: ids.map((devicesIds) => ({ devicesIds })) };
    expect(allocateResponse(byName(name), req)).toEqual(want);
  });
});
