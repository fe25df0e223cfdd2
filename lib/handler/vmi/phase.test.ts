import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, VirtualMachineInstancePhase } from '../../kubevirt/index.ts';
import type { DomainJson, LifeCycle } from '../../rpc/index.ts';
import { testDomain } from '../../rpc/testing/domain.ts';
import { domainPhase, type LauncherReach } from './phase.ts';

const vmi = (phase: VirtualMachineInstancePhase | undefined, acpi = true): VirtualMachineInstance => ({
  metadata: { name: 'v', namespace: 'ns', uid: 'u' },
  spec: { domain: { devices: {}, ...(!acpi && { features: { acpi: { enabled: false } } }) } },
  ...(phase !== undefined && { status: { phase } }),
});

const domain = (status: LifeCycle, reason?: string): DomainJson => testDomain(status, reason);

type Phase = VirtualMachineInstancePhase | undefined;
const ready: LauncherReach = { initialized: true, unresponsive: false };
const starting: LauncherReach = { initialized: false, unresponsive: false };
const gone: LauncherReach = { initialized: true, unresponsive: true };

describe('domainPhase (KubeVirt calculateVmPhaseForStatusReason)', () => {
  type Row = [string, [VirtualMachineInstance, DomainJson | undefined, LauncherReach], Phase];
  it.each<Row>([
    [
      'no domain, Scheduled, launcher not answering yet: stays',
      [vmi('Scheduled'), undefined, starting],
      'Scheduled',
    ],
    ['no domain, Scheduled, launcher ready: stays', [vmi('Scheduled'), undefined, ready], 'Scheduled'],
    ['no domain, Scheduled, launcher unresponsive: Failed', [vmi('Scheduled'), undefined, gone], 'Failed'],
    ['no domain, Running, launcher unresponsive: Failed', [vmi('Running'), undefined, gone], 'Failed'],
    ['no domain, Running, launcher not initialized: stays', [vmi('Running'), undefined, starting], 'Running'],
    ['no domain, Pending: Scheduled', [vmi('Pending'), undefined, ready], 'Scheduled'],
    ['no domain, Succeeded: stays', [vmi('Succeeded'), undefined, gone], 'Succeeded'],
    ['Running', [vmi('Scheduled'), domain('Running', 'Booted'), ready], 'Running'],
    ['Blocked', [vmi('Running'), domain('Blocked', 'Unknown'), ready], 'Running'],
    ['PMSuspended', [vmi('Running'), domain('PMSuspended', 'Unknown'), ready], 'Running'],
    ['Paused by the user', [vmi('Running'), domain('Paused', 'User'), ready], 'Running'],
    ['Paused, post-copy failed', [vmi('Running'), domain('Paused', 'PostcopyFailed'), ready], 'Failed'],
    ['Shutoff, Shutdown', [vmi('Running'), domain('Shutoff', 'Shutdown'), ready], 'Succeeded'],
    ['Shutoff, Saved', [vmi('Running'), domain('Shutoff', 'Saved'), ready], 'Succeeded'],
    ['Shutoff, FromSnapshot', [vmi('Running'), domain('Shutoff', 'FromSnapshot'), ready], 'Succeeded'],
    [
      'Shutoff, Destroyed with ACPI: the grace period ran out',
      [vmi('Running'), domain('Shutoff', 'Destroyed'), ready],
      'Failed',
    ],
    [
      'Shutoff, Destroyed without ACPI',
      [vmi('Running', false), domain('Shutoff', 'Destroyed'), ready],
      'Succeeded',
    ],
    ['Shutoff, Crashed', [vmi('Running'), domain('Shutoff', 'Crashed'), ready], 'Failed'],
    ['Crashed, Panicked', [vmi('Running'), domain('Crashed', 'Panicked'), ready], 'Failed'],
    [
      'Shutoff, Migrated: unknown here, keeps the phase',
      [vmi('Running'), domain('Shutoff', 'Migrated'), ready],
      'Running',
    ],
    [
      'Shutoff with no reason yet: keeps the phase',
      [vmi('Scheduled'), domain('Shutoff', 'Unknown'), ready],
      'Scheduled',
    ],
    ['ShuttingDown: keeps the phase', [vmi('Running'), domain('ShuttingDown', 'User'), ready], 'Running'],
    ['NoState: keeps the phase', [vmi('Scheduled'), domain('NoState', 'Unknown'), ready], 'Scheduled'],
  ])('%s', (_case, [v, d, launcher], want) => {
    expect(domainPhase(v, d, launcher)).toBe(want);
  });
});
