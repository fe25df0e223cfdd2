import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, VolumeStatus } from '../kubevirt/index.ts';
import { vmiSpecChecksum } from './checksum.ts';

const base: VirtualMachineInstance = { metadata: { name: 'v' }, spec: { domain: { devices: {} } } };
const withVolume = (phase: string, hotplug = true): VirtualMachineInstance => {
  const v: VolumeStatus = {
    name: 'hp',
    target: '',
    phase,
    ...(hotplug && { hotplugVolume: { attachPodUID: 'a' } }),
  };
  return { ...base, status: { volumeStatus: [v] } };
};

describe('vmiSpecChecksum', () => {
  it('changes with the spec, not with the rest of the status', () => {
    const other = { ...base, spec: { ...base.spec, hostname: 'x' } };
    expect(vmiSpecChecksum(other)).not.toBe(vmiSpecChecksum(base));
    expect(vmiSpecChecksum({ ...base, status: { phase: 'Running' } })).toBe(vmiSpecChecksum(base));
  });

  it('changes once a hotplug volume is mounted into the launcher Pod, and stays through Ready', () => {
    const attached = vmiSpecChecksum(withVolume('AttachedToNode'));
    expect(attached).toBe(vmiSpecChecksum(base));
    const mounted = vmiSpecChecksum(withVolume('MountedToPod'));
    expect(mounted).not.toBe(attached);
    expect(vmiSpecChecksum(withVolume('Ready'))).toBe(mounted);
    expect(vmiSpecChecksum(withVolume('Ready', false))).toBe(attached);
  });
});
