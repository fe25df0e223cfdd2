/** KubeVirt's validatePath: a file path inside an image is absolute, not the root, with no relative parts. */
import { posix } from 'node:path';
import { invalid, type Causes } from './causes.ts';

/** Go's filepath.Clean for an absolute path (no trailing slash but for the root). */
function clean(p: string): string {
  const normal = posix.normalize(p);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

export function absolutePathCauses(field: string, p: string): Causes {
  if (p === '/') return [invalid(field, `${field} must not point to root`)];
  const provided = p.endsWith('/') ? p.slice(0, -1) : p;
  if (clean(`/${p}`) !== provided) {
    return [invalid(field, `${field} must be an absolute path to a file without relative components`)];
  }
  return [];
}
