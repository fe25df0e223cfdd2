import { describe, expect, it } from '@jest/globals';
import { mountPoints } from './mounts.ts';

describe('mountPoints', () => {
  it('reads field 5 of each mountinfo line and undoes the octal escapes', () => {
    const text = [
      '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw',
      '90 22 8:1 /data/pv1/disk.img /var/lib/kubelet/pods/u/volumes/kubernetes.io~empty-dir/hotplug-disks/hp.img rw - ext4 /dev/sda1 rw',
      '91 22 0:5 / /mnt/with\\040space rw - tmpfs tmpfs rw',
      '',
    ].join('\n');
    expect(mountPoints(text)).toEqual([
      '/',
      '/var/lib/kubelet/pods/u/volumes/kubernetes.io~empty-dir/hotplug-disks/hp.img',
      '/mnt/with space',
    ]);
  });
});
