import { describe, expect, it } from '@jest/globals';
import { draDevicesPending } from '../../kubevirt/index.ts';
import type { ResourceClaim, ResourceSlice } from '../../kubevirt/core/dra.ts';
import { computeDeviceStatus, deviceAttributes, type DraLookups } from './device-status.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { claim, devicePod, draPod, draVmi, slice } from './testing.ts';

/** The launcher Pod alone, with no hotplugged claims. */
const only = (claims: Record<string, string | null>): { launcher: Pod; devicePods: Pod[] } => ({
  launcher: draPod(claims),
  devicePods: [],
});

function lookups(claims: ResourceClaim[], slices: ResourceSlice[]): DraLookups {
  return {
    claim: (_ns, name) => claims.find((c) => c.metadata.name === name),
    slices: (driver, pool) => slices.filter((s) => s.spec.driver === driver && s.spec.pool.name === pool),
  };
}

const usbVmi = draVmi({ hostDevices: [{ name: 'usb1', claimName: 'usb', requestName: 'req' }] });

describe('deviceAttributes', () => {
  it.each([
    [
      'pciBusID',
      { 'resource.kubernetes.io/pciBusID': { string: '0000:05:00.0' } },
      { pciAddress: '0000:05:00.0' },
    ],
    [
      'pcieRoot (v1.6.2)',
      { 'resource.kubernetes.io/pcieRoot': { string: '0000:06:00.0' } },
      { pciAddress: '0000:06:00.0' },
    ],
    ['mdev', { 'resource.kubernetes.io/mDevUUID': { string: 'u-1' } }, { mDevUUID: 'u-1' }],
    [
      'USB strings as the Deckhouse driver writes them',
      { bus: { string: '001' }, deviceNumber: { string: '012' } },
      { usbAddress: { bus: 1, deviceNumber: 12 } },
    ],
    ['USB ints', { bus: { int: 3 }, deviceNumber: { int: 4 } }, { usbAddress: { bus: 3, deviceNumber: 4 } }],
    ['USB bus without device number', { bus: { string: '001' } }, {}],
    ['USB numbers that are not numbers', { bus: { string: 'x' }, deviceNumber: { string: '1' } }, {}],
    ['nothing known', { 'gpu.example/model': { string: 'big' } }, {}],
  ])('%s', (_n, attrs, want) => {
    expect(deviceAttributes(attrs)).toEqual(want);
  });
});

describe('computeDeviceStatus', () => {
  it('waits until the Pod reports a ResourceClaim for each of its claims', () => {
    expect(computeDeviceStatus(usbVmi, only({ usb: null }), lookups([], []))).toBeUndefined();
  });

  it('claim reported, not allocated: the claim name only', () => {
    const s = computeDeviceStatus(usbVmi, only({ usb: 'pod-usb-x' }), lookups([claim('pod-usb-x')], []));
    expect(s).toEqual({
      hostDeviceStatuses: [{ name: 'usb1', deviceResourceClaimStatus: { resourceClaimName: 'pod-usb-x' } }],
    });
    expect(draDevicesPending({ ...usbVmi, status: { deviceStatus: s ?? {} } })).toBe(
      'waiting for the DRA devices of host device usb1',
    );
  });

  it('allocated device with its slice attributes: attachable', () => {
    const s = computeDeviceStatus(
      usbVmi,
      only({ usb: 'pod-usb-x' }),
      lookups(
        [claim('pod-usb-x', ['other', 'dev-0'], ['req', 'dev-1'])],
        [slice({ 'dev-0': {}, 'dev-1': { bus: { string: '002' }, deviceNumber: { string: '005' } } })],
      ),
    );
    expect(s).toEqual({
      hostDeviceStatuses: [
        {
          name: 'usb1',
          deviceResourceClaimStatus: {
            resourceClaimName: 'pod-usb-x',
            name: 'dev-1',
            attributes: { usbAddress: { bus: 2, deviceNumber: 5 } },
          },
        },
      ],
    });
    expect(draDevicesPending({ ...usbVmi, status: { deviceStatus: s ?? {} } })).toBeUndefined();
  });

  it('allocated device without known attributes: named, not attachable', () => {
    const s = computeDeviceStatus(
      usbVmi,
      only({ usb: 'c' }),
      lookups([claim('c', ['req', 'device-00'])], [slice({ 'device-00': {} })]),
    );
    expect(s?.hostDeviceStatuses?.[0]?.deviceResourceClaimStatus).toEqual({
      resourceClaimName: 'c',
      name: 'device-00',
      attributes: {},
    });
    expect(draDevicesPending({ ...usbVmi, status: { deviceStatus: s ?? {} } })).toMatch(/usb1/);
  });

  it('GPUs and host devices apart; device-plugin devices left out', () => {
    const v = draVmi({
      gpus: [
        { name: 'gpu-0', claimName: 'gpu-0', requestName: 'gpu-0' },
        { name: 'legacy', deviceName: 'nvidia.com/GP100' },
      ],
      hostDevices: [{ name: 'nic', claimName: 'nic', requestName: 'vf' }],
    });
    const s = computeDeviceStatus(
      v,
      only({ 'gpu-0': 'g', nic: 'n' }),
      lookups(
        [claim('g', ['gpu-0', 'gpu-a']), claim('n', ['vf', 'vf-3'])],
        [
          slice({
            'gpu-a': { 'resource.kubernetes.io/mDevUUID': { string: 'm-1' } },
            'vf-3': { 'resource.kubernetes.io/pciBusID': { string: '0000:81:00.3' } },
          }),
        ],
      ),
    );
    expect(s?.gpuStatuses?.map((g) => [g.name, g.deviceResourceClaimStatus?.attributes])).toEqual([
      ['gpu-0', { mDevUUID: 'm-1' }],
    ]);
    expect(s?.hostDeviceStatuses?.map((g) => [g.name, g.deviceResourceClaimStatus?.attributes])).toEqual([
      ['nic', { pciAddress: '0000:81:00.3' }],
    ]);
  });

  it('a device of another pool with the same name is not read', () => {
    const other = slice({ 'dev-1': { bus: { int: 1 }, deviceNumber: { int: 1 } } });
    other.spec.pool.name = 'n2';
    const s = computeDeviceStatus(
      usbVmi,
      only({ usb: 'c' }),
      lookups([claim('c', ['req', 'dev-1'])], [other]),
    );
    expect(s?.hostDeviceStatuses?.[0]?.deviceResourceClaimStatus?.attributes).toEqual({});
  });

  describe('a claim hotplugged into the running VMI', () => {
    // usb is the launcher's own claim; hot is added later and held by an attachment Pod.
    const hotVmi = draVmi({
      hostDevices: [
        { name: 'usb1', claimName: 'usb', requestName: 'req' },
        { name: 'hot1', claimName: 'hot', requestName: 'req' },
      ],
    });
    const lookupsBoth = lookups(
      [claim('c', ['req', 'dev-1']), claim('h', ['req', 'dev-2'])],
      [slice({ 'dev-1': {}, 'dev-2': { bus: { int: 1 }, deviceNumber: { int: 2 } } })],
    );

    it('no attachment Pod yet: an entry with no claim, and the VMI waits for it', () => {
      const s = computeDeviceStatus(hotVmi, only({ usb: 'c' }), lookupsBoth);
      expect(s?.hostDeviceStatuses?.[1]).toEqual({ name: 'hot1', deviceResourceClaimStatus: {} });
    });

    it("read from the attachment Pod holding it, which the entry's hotplug names", () => {
      const s = computeDeviceStatus(
        hotVmi,
        { launcher: draPod({ usb: 'c' }), devicePods: [devicePod('hp-device-a', 'hot', 'h')] },
        lookupsBoth,
      );
      expect(s?.hostDeviceStatuses?.[1]).toEqual({
        name: 'hot1',
        deviceResourceClaimStatus: {
          resourceClaimName: 'h',
          name: 'dev-2',
          attributes: { usbAddress: { bus: 1, deviceNumber: 2 } },
        },
        hotplug: { attachPodName: 'hp-device-a', attachPodUID: 'uid-hp-device-a' },
      });
      expect(s?.hostDeviceStatuses?.[0]?.hotplug).toBeUndefined();
    });

    it('a Pod being deleted, or one holding another claim, is not the holder', () => {
      const leaving = devicePod('hp-device-a', 'hot', 'h');
      leaving.metadata.deletionTimestamp = '2026-12-07T00:00:00Z';
      const s = computeDeviceStatus(
        hotVmi,
        { launcher: draPod({ usb: 'c' }), devicePods: [leaving, devicePod('hp-device-b', 'other', 'o')] },
        lookupsBoth,
      );
      expect(s?.hostDeviceStatuses?.[1]).toEqual({ name: 'hot1', deviceResourceClaimStatus: {} });
    });
  });

  it("keeps the handler's phase and address of an entry while rewriting the rest", () => {
    const vmi = {
      ...usbVmi,
      status: {
        deviceStatus: {
          hostDeviceStatuses: [
            { name: 'usb1', deviceResourceClaimStatus: {}, phase: 'Ready', address: '0:1' },
            { name: 'gone', deviceResourceClaimStatus: {}, phase: 'Ready' },
          ],
        },
      },
    };
    const s = computeDeviceStatus(vmi, only({ usb: 'c' }), lookups([claim('c')], []));
    expect(s?.hostDeviceStatuses).toEqual([
      { name: 'usb1', deviceResourceClaimStatus: { resourceClaimName: 'c' }, phase: 'Ready', address: '0:1' },
    ]);
  });
});
