import { describe, expect, it } from '@jest/globals';
import type { Disk, HostDevice } from '../converter/index.ts';
import { diskDiff, planSync, type SyncInput } from './plan.ts';

const disk = (name: string): Disk => ({
  device: 'disk',
  type: 'file',
  source: { file: `/d/${name}` },
  target: { bus: 'virtio', dev: 'vda' },
  driver: { name: 'qemu', type: 'raw' },
  readonly: false,
  shareable: false,
  alias: { name, userDefined: true },
});

const alias = (name: string): HostDevice['alias'] => ({ name, userDefined: true });
const usb = (name: string, device = 2): HostDevice => ({
  type: 'usb',
  bus: 1,
  device,
  alias: alias(`dra-hostdevice-${name}`),
});
const gpu = (name: string, bus = '0x3b'): HostDevice => ({
  type: 'pci',
  source: { type: 'pci', domain: '0x0000', bus, slot: '0x00', function: '0x0' },
  alias: alias(`dra-gpu-${name}`),
});
const vgpu = (name: string, display?: 'on'): HostDevice => ({
  type: 'mdev',
  uuid: '8f2c6a1e-4b3d-4e5f-9a0b-1c2d3e4f5a6b',
  ...(display !== undefined && { display }),
  alias: alias(`dra-gpu-${name}`),
});
/** A host device that is not DRA's (no `dra-` alias): never hotplugged. */
const other = (device: number): HostDevice => ({ type: 'usb', bus: 1, device, alias: alias('hostdevice-x') });

const base: SyncInput = {
  state: undefined,
  appliedXml: undefined,
  wantedXml: '<domain/>',
  appliedDisks: [],
  wantedDisks: [],
  appliedHostDevices: [],
  wantedHostDevices: [],
  vmiPhase: 'Scheduled',
  pausedByUser: false,
};

describe('planSync', () => {
  it.each<[string, Partial<SyncInput>, object]>([
    ['no domain: define and start', {}, { define: true, start: true, resume: false }],
    [
      'down, same XML, not yet run: start',
      { state: 'shutoff', appliedXml: '<domain/>' },
      { define: false, start: true },
    ],
    [
      'down, XML changed: redefine and start',
      { state: 'shutoff', appliedXml: '<old/>' },
      { define: true, start: true },
    ],
    [
      'down after running: leave it',
      { state: 'shutoff', vmiPhase: 'Running' },
      { define: false, start: false },
    ],
    [
      'crashed and final: leave it',
      { state: 'crashed', vmiPhase: 'Failed' },
      { define: false, start: false },
    ],
    [
      'running: nothing',
      { state: 'running', vmiPhase: 'Running' },
      { define: false, start: false, resume: false },
    ],
    ['paused by nobody: resume', { state: 'paused' }, { resume: true }],
    ['paused by the user: stay paused', { state: 'paused', pausedByUser: true }, { resume: false }],
  ])('%s', (_what, input, want) => {
    expect(planSync({ ...base, ...input })).toMatchObject(want);
  });

  it('hotplugs the disk difference of a running domain', () => {
    const plan = planSync({
      ...base,
      state: 'running',
      appliedDisks: [disk('root'), disk('gone')],
      wantedDisks: [disk('root'), disk('new')],
    });
    expect(plan.attach.map((d) => d.alias.name)).toEqual(['new']);
    expect(plan.detach.map((d) => d.alias.name)).toEqual(['gone']);
  });

  const aliases = (hs: readonly HostDevice[]): string[] => hs.map((h) => h.alias.name);
  it.each<[string, Partial<SyncInput>, { detach: string[]; attach: string[] }]>([
    [
      'running, a new DRA device: attach it',
      { state: 'running', appliedHostDevices: [gpu('a')], wantedHostDevices: [gpu('a'), usb('t')] },
      { detach: [], attach: ['dra-hostdevice-t'] },
    ],
    [
      'paused, a DRA device gone: detach it',
      { state: 'paused', appliedHostDevices: [gpu('a'), usb('t')], wantedHostDevices: [gpu('a')] },
      { detach: ['dra-hostdevice-t'], attach: [] },
    ],
    [
      'running, a DRA device at another address: detach and attach it again',
      {
        state: 'running',
        appliedHostDevices: [usb('t', 2), gpu('a')],
        wantedHostDevices: [usb('t', 3), gpu('a')],
      },
      { detach: ['dra-hostdevice-t'], attach: ['dra-hostdevice-t'] },
    ],
    [
      'running, a vGPU that became the display: detach and attach it again',
      { state: 'running', appliedHostDevices: [vgpu('v')], wantedHostDevices: [vgpu('v', 'on')] },
      { detach: ['dra-gpu-v'], attach: ['dra-gpu-v'] },
    ],
    [
      'running, the same devices in another order: nothing',
      {
        state: 'running',
        appliedHostDevices: [gpu('a'), gpu('b', '0x3c')],
        wantedHostDevices: [gpu('b', '0x3c'), gpu('a')],
      },
      { detach: [], attach: [] },
    ],
    [
      'running, a host device that is not DRA added, removed or changed: never touched',
      {
        state: 'running',
        appliedHostDevices: [other(2)],
        wantedHostDevices: [other(3), { ...other(4), alias: alias('y') }],
      },
      { detach: [], attach: [] },
    ],
    [
      'down (not yet run), devices gained and lost: nothing, the start defines them',
      { state: 'shutoff', appliedHostDevices: [usb('gone')], wantedHostDevices: [usb('new')] },
      { detach: [], attach: [] },
    ],
    [
      'down after running: nothing',
      {
        state: 'crashed',
        vmiPhase: 'Running',
        appliedHostDevices: [usb('gone')],
        wantedHostDevices: [usb('new')],
      },
      { detach: [], attach: [] },
    ],
    ['no domain: nothing', { wantedHostDevices: [usb('new')] }, { detach: [], attach: [] }],
  ])('host devices: %s', (_what, input, want) => {
    const plan = planSync({ ...base, ...input });
    expect({ detach: aliases(plan.detachHostDevices), attach: aliases(plan.attachHostDevices) }).toEqual(
      want,
    );
  });

  it('never hotplugs while the domain is down', () => {
    const plan = planSync({ ...base, state: 'shutoff', vmiPhase: 'Running', wantedDisks: [disk('new')] });
    expect(plan.attach).toEqual([]);
  });
});

describe('diskDiff', () => {
  it('keys disks by alias', () => {
    expect(diskDiff([disk('a')], [disk('a')])).toEqual({ attach: [], detach: [] });
  });
});
