/** The mount points this process sees, from /proc/self/mountinfo (field 5, octal escapes such as \040 undone). */
import { readFile } from 'node:fs/promises';

export function mountPoints(mountinfo: string): string[] {
  return mountinfo
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((p): p is string => p !== undefined && p !== '')
    .map((p) => p.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))));
}

/** Every mount point, once each, in mountinfo order. */
export async function readMountPoints(): Promise<string[]> {
  return [...new Set(mountPoints(await readFile('/proc/self/mountinfo', 'utf8')))];
}

/** How many mounts lie on `point` now (more than one when mounts are stacked on it). */
export async function mountCount(point: string): Promise<number> {
  return mountPoints(await readFile('/proc/self/mountinfo', 'utf8')).filter((p) => p === point).length;
}
