import { describe, expect, it } from '@jest/globals';
import type { KubeVirt, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { vmi } from '../../kubevirt/testing/objects.ts';
import { KUBEVIRT_OVERHEAD } from './overhead.ts';
import { checkPermittedHostDevices, permittedHostDevicesOf } from './permitted-host-devices.ts';
import { launcherResources } from './pod-resources.ts';

const kubevirt = (configuration: Record<string, unknown> | undefined): KubeVirt => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'KubeVirt',
  metadata: { name: 'config', namespace: 'd8-virtualization' },
  spec: configuration === undefined ? {} : { configuration },
});

type Devices = VirtualMachineInstance['spec']['domain']['devices'];
const spec = (devices: Partial<Devices>): VirtualMachineInstance['spec'] =>
  vmi((v) => Object.assign(v.spec.domain.devices, devices)).spec;

describe('permittedHostDevicesOf', () => {
  it.each<[string, KubeVirt | undefined, string[] | undefined]>([
    ['no KubeVirt CR', undefined, undefined],
    ['no configuration', kubevirt(undefined), undefined],
    ['no permittedHostDevices', kubevirt({ developerConfiguration: {} }), undefined],
    ['permittedHostDevices null', kubevirt({ permittedHostDevices: null }), undefined],
    ['an empty list: nothing is permitted', kubevirt({ permittedHostDevices: {} }), []],
    [
      'PCI, mediated and USB resource names',
      kubevirt({
        permittedHostDevices: {
          pciHostDevices: [{ pciVendorSelector: '10DE:1EB8', resourceName: 'nvidia.com/TU104GL' }],
          mediatedDevices: [{ mdevNameSelector: 'GRID T4-1Q', resourceName: 'nvidia.com/GRID_T4-1Q' }],
          usb: [{ resourceName: 'kubevirt.io/storage', selectors: [{ vendor: '46f4', product: '0001' }] }],
        },
      }),
      ['nvidia.com/TU104GL', 'nvidia.com/GRID_T4-1Q', 'kubevirt.io/storage'],
    ],
    [
      'entries without a resourceName, and lists that are not lists, count for nothing',
      kubevirt({ permittedHostDevices: { pciHostDevices: [{}, null, 'x'], usb: 'kubevirt.io/storage' } }),
      [],
    ],
  ])('%s', (_n, kv, want) => {
    const got = permittedHostDevicesOf(kv);
    expect(got === undefined ? undefined : [...got]).toEqual(want);
  });
});

describe('checkPermittedHostDevices', () => {
  const permitted = new Set(['nvidia.com/TU104GL', 'kubevirt.io/storage']);
  it.each<[string, Partial<Devices>, ReadonlySet<string> | undefined, string | undefined]>([
    [
      'no list: every device',
      { gpus: [{ name: 'g', deviceName: 'nvidia.com/other' }] },
      undefined,
      undefined,
    ],
    [
      'permitted devices',
      {
        gpus: [{ name: 'g', deviceName: 'nvidia.com/TU104GL' }],
        hostDevices: [{ name: 'h', deviceName: 'kubevirt.io/storage' }],
      },
      permitted,
      undefined,
    ],
    [
      'a GPU not permitted',
      { gpus: [{ name: 'g', deviceName: 'nvidia.com/other' }] },
      permitted,
      'GPU nvidia.com/other is not permitted in permittedHostDevices configuration',
    ],
    [
      'a GPU and a host device not permitted: both, in KubeVirt’s order and wording',
      {
        gpus: [{ name: 'g', deviceName: 'nvidia.com/other' }],
        hostDevices: [
          { name: 'ok', deviceName: 'kubevirt.io/storage' },
          { name: 'h', deviceName: 'devices.virtualization.deckhouse.io/kvm' },
        ],
      },
      permitted,
      'GPU nvidia.com/other is not permitted in permittedHostDevices configuration ' +
        'HostDevice devices.virtualization.deckhouse.io/kvm is not permitted in permittedHostDevices configuration',
    ],
    [
      'a DRA device requests no resource: not checked',
      { hostDevices: [{ name: 'h', claimName: 'claim', requestName: 'r' }] },
      new Set<string>(),
      undefined,
    ],
  ])('%s', (_n, devices, list, want) => {
    const check = (): void => {
      checkPermittedHostDevices(spec(devices), list);
    };
    if (want === undefined) expect(check).not.toThrow();
    else expect(check).toThrow(expect.objectContaining({ code: 'KV_ERR_INVALID', message: want }));
  });

  it('the launcher resources refuse to render a device the list does not permit', () => {
    const opts = { allowEmulation: true, cpuAllocationRatio: 10, overhead: { constants: KUBEVIRT_OVERHEAD } };
    const v = vmi((x) => (x.spec.domain.devices.hostDevices = [{ name: 'h', deviceName: 'vendor.com/dev' }]));
    expect(launcherResources(v, opts).limits['vendor.com/dev']).toBe('1');
    expect(() => launcherResources(v, { ...opts, permittedHostDevices: new Set(['other.com/dev']) })).toThrow(
      'HostDevice vendor.com/dev is not permitted in permittedHostDevices configuration',
    );
  });
});
