/**
 * The target handler's migration ports, pure: each proxy listener takes the lowest port of the configured range
 * (the Deckhouse fork's --migration-port-range-first/last, 4135–4199; KubeVirt upstream binds port 0) that no
 * running listener holds and no earlier bind found busy.
 */
import { KvError } from '../../kernel/errors/errors.ts';

export interface PortRange {
  readonly first: number;
  readonly last: number;
}

/** The fork's range: 65 ports, three per migration (libvirt, direct, block). */
export const DEFAULT_MIGRATION_PORT_RANGE: PortRange = { first: 4135, last: 4199 };

const isPort = (p: number): boolean => Number.isInteger(p) && p >= 1 && p <= 65535;

/** Throws KV_ERR_CONFIG unless `first` and `last` are ports with first ≤ last. */
export function checkPortRange(r: PortRange): PortRange {
  if (!isPort(r.first) || !isPort(r.last) || r.first > r.last)
    throw new KvError(
      'KV_ERR_CONFIG',
      `migration port range ${r.first}-${r.last} is not a range of ports (1-65535, first ≤ last)`,
    );
  return r;
}

/**
 * The lowest port of `range` in neither `held` (the running listeners') nor `busy` (found in use by another
 * program on this attempt); KV_ERR_CONFIG naming the range and the counts when there is none.
 */
export function freePort(range: PortRange, held: ReadonlySet<number>, busy: ReadonlySet<number>): number {
  checkPortRange(range);
  for (let p = range.first; p <= range.last; p++) if (!held.has(p) && !busy.has(p)) return p;
  const size = range.last - range.first + 1;
  const heldIn = [...held].filter((p) => p >= range.first && p <= range.last).length;
  throw new KvError(
    'KV_ERR_CONFIG',
    `no free migration port in ${range.first}-${range.last}: ${heldIn} of ${size} held by migration proxies, ` +
      `${size - heldIn} in use by other programs`,
  );
}
