import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, VirtualMachineInstancePhase } from '../../kubevirt/index.ts';
import type { DomainJson, LifeCycle } from '../../rpc/index.ts';
import { testDomain } from '../../rpc/testing/domain.ts';
import { decideAction, type HandlerAction } from './decide.ts';
import type { LauncherReach } from './phase.ts';

const vmi = (phase: VirtualMachineInstancePhase, deleting = false): VirtualMachineInstance => ({
  metadata: {
    name: 'v',
    namespace: 'ns',
    uid: 'u',
    ...(deleting && { deletionTimestamp: '2026-01-01T00:00:00Z' }),
  },
  spec: { domain: { devices: {} } },
  status: { phase },
});
const domain = (status: LifeCycle, reason?: string): DomainJson => testDomain(status, reason);
const failedSync = (v: VirtualMachineInstance): VirtualMachineInstance => ({
  ...v,
  status: {
    ...v.status,
    conditions: [{ type: 'Synchronized', status: 'False', reason: 'Synchronizing with the Domain failed.' }],
  },
});
/** The VMI with a hotpluggable boot claim, its volume status in `phase` (none: not listed yet). */
const withHotplug = (v: VirtualMachineInstance, phase?: string): VirtualMachineInstance => ({
  ...v,
  spec: {
    ...v.spec,
    volumes: [{ name: 'boot', persistentVolumeClaim: { claimName: 'c', hotpluggable: true } }],
  },
  status: {
    ...v.status,
    ...(phase !== undefined && {
      volumeStatus: [{ name: 'boot', target: '', phase, hotplugVolume: { attachPodName: 'hp' } }],
    }),
  },
});
/** The VMI with a DRA USB device, attachable (its address in the status) or not. */
const withDra = (v: VirtualMachineInstance, attachable: boolean): VirtualMachineInstance => ({
  ...v,
  spec: {
    ...v.spec,
    domain: {
      ...v.spec.domain,
      devices: { hostDevices: [{ name: 'usb', claimName: 'c', requestName: 'r' }] },
    },
  },
  status: {
    ...v.status,
    deviceStatus: {
      hostDeviceStatuses: [
        {
          name: 'usb',
          deviceResourceClaimStatus: {
            resourceClaimName: 'pod-c',
            name: 'dev-1',
            attributes: attachable ? { usbAddress: { bus: 1, deviceNumber: 2 } } : {},
          },
        },
      ],
    },
  },
});
/** A migration of the VMI started and has not ended. */
const migrating = (v: VirtualMachineInstance): VirtualMachineInstance => ({
  ...v,
  status: { ...v.status, migrationState: { migrationUid: 'm', startTimestamp: '2026-01-01T00:00:00Z' } },
});
const ok: LauncherReach = { initialized: true, unresponsive: false };
const gone: LauncherReach = { initialized: true, unresponsive: true };

type Row = [
  string,
  [VirtualMachineInstance | undefined, DomainJson | undefined, LauncherReach],
  HandlerAction,
];

describe('decideAction (KubeVirt handler sync)', () => {
  it.each<Row>([
    ['a Scheduled VMI without a domain: start it', [vmi('Scheduled'), undefined, ok], 'sync'],
    [
      'a migration under way (VMI): leave the domain to it',
      [migrating(vmi('Running')), domain('Running', 'Booted'), ok],
      'none',
    ],
    [
      'a domain paused for a migration: leave it to the migration',
      [vmi('Running'), domain('Paused', 'Migration'), ok],
      'none',
    ],
    [
      'a VMI deleted during its migration: shut the domain down',
      [migrating(vmi('Running', true)), domain('Running', 'Booted'), ok],
      'shutdown',
    ],
    [
      "the domain migrated away: delete this node's copy",
      [vmi('Running'), domain('Shutoff', 'Migrated'), ok],
      'delete',
    ],
    [
      'a Running VMI with its domain running: keep it in line',
      [vmi('Running'), domain('Running', 'Booted'), ok],
      'sync',
    ],
    [
      'a Scheduled VMI whose domain already runs: write Running first',
      [vmi('Scheduled'), domain('Running', 'Booted'), ok],
      'none',
    ],
    [
      'a Scheduled VMI whose launcher stopped answering: nothing to do but report',
      [vmi('Scheduled'), undefined, gone],
      'none',
    ],
    ['the VMI is gone and the domain runs: shut it down', [undefined, domain('Running'), ok], 'shutdown'],
    [
      'the VMI is gone and the domain is off: delete it',
      [undefined, domain('Shutoff', 'Shutdown'), ok],
      'delete',
    ],
    ['the VMI is gone and there is no domain', [undefined, undefined, ok], 'none'],
    [
      'the VMI is being deleted and the domain runs: shut it down',
      [vmi('Running', true), domain('Running'), ok],
      'shutdown',
    ],
    [
      'the VMI is being deleted and the domain is off: delete it',
      [vmi('Running', true), domain('Shutoff', 'Destroyed'), ok],
      'delete',
    ],
    [
      'a final VMI with its domain: delete it',
      [vmi('Succeeded'), domain('Shutoff', 'Shutdown'), ok],
      'delete',
    ],
    ['a final VMI without a domain', [vmi('Failed'), undefined, ok], 'none'],
    [
      'the guest shut down by itself: delete the domain',
      [vmi('Running'), domain('Shutoff', 'Shutdown'), ok],
      'delete',
    ],
    ['the guest crashed: delete the domain', [vmi('Running'), domain('Crashed', 'Panicked'), ok], 'delete'],
    [
      'a Shutoff domain of a Scheduled VMI with no reason yet: wait',
      [vmi('Scheduled'), domain('Shutoff', 'Unknown'), ok],
      'wait',
    ],
    [
      'a domain a failed sync defined and never started: sync again',
      [failedSync(vmi('Scheduled')), domain('Shutoff', 'Unknown'), ok],
      'sync',
    ],
    [
      'a Scheduled VMI whose hotplug boot disk is not mounted yet: wait before the start',
      [withHotplug(vmi('Scheduled'), 'AttachedToNode'), undefined, ok],
      'wait',
    ],
    [
      'a Scheduled VMI whose hotplug volume has no status yet: wait',
      [withHotplug(vmi('Scheduled')), undefined, ok],
      'wait',
    ],
    [
      'a Scheduled VMI whose hotplug volume is mounted: start it',
      [withHotplug(vmi('Scheduled'), 'MountedToPod'), undefined, ok],
      'sync',
    ],
    [
      'a Scheduled VMI whose DRA device has no address yet: wait before the start',
      [withDra(vmi('Scheduled'), false), undefined, ok],
      'wait',
    ],
    [
      'a Scheduled VMI whose DRA device has its address: start it',
      [withDra(vmi('Scheduled'), true), undefined, ok],
      'sync',
    ],
    [
      'a running domain with a DRA device hotplugged and no address yet: wait',
      [withDra(vmi('Running'), false), domain('Running', 'Booted'), ok],
      'wait',
    ],
    [
      'a running domain with a DRA device hotplugged and its address: sync (the launcher attaches it)',
      [withDra(vmi('Running'), true), domain('Running', 'Booted'), ok],
      'sync',
    ],
    [
      'a failed start whose hotplug volume went: wait for it again',
      [failedSync(withHotplug(vmi('Scheduled'), 'Bound')), domain('Shutoff', 'Unknown'), ok],
      'wait',
    ],
    [
      'a running domain whose hotplug volume is unplugged: keep it in line',
      [withHotplug(vmi('Running'), 'Detaching'), domain('Running', 'Booted'), ok],
      'sync',
    ],
    ['a Paused domain: keep it in line', [vmi('Running'), domain('Paused', 'User'), ok], 'sync'],
  ])('%s', (_case, [v, d, launcher], want) => {
    expect(decideAction({ vmi: v, domain: d, launcher })).toBe(want);
  });
});
