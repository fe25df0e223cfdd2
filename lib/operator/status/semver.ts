/**
 * Whether moving from one version to another takes KubeVirt's update path (reconcile.go shouldTakeUpdatePath):
 * with no current version it is an install; when both versions, without a leading `v`, are semantic versions
 * (coreos/go-semver: MAJOR.MINOR.PATCH, optional pre-release and build metadata) only a higher target is an
 * update; any other pair is taken as an update. Pure.
 */

interface SemVer {
  readonly core: readonly number[];
  readonly pre: readonly string[];
}

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;
const NUMERIC = /^\d+$/;

function parse(v: string): SemVer | undefined {
  const m = SEMVER.exec(v.replace(/^v/, ''));
  if (m === null) return undefined;
  const [, major = '', minor = '', patch = '', pre] = m;
  return {
    core: [Number(major), Number(minor), Number(patch)],
    pre: pre === undefined ? [] : pre.split('.'),
  };
}

function compareIdentifiers(a: string, b: string): number {
  const an = NUMERIC.test(a);
  const bn = NUMERIC.test(b);
  if (an && bn) return Math.sign(Number(a) - Number(b));
  if (an !== bn) return an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Pre-release precedence: none is higher than any; then identifier by identifier, the shorter list first. */
function comparePre(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return Math.sign(b.length - a.length);
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareIdentifiers(a[i] ?? '', b[i] ?? '');
    if (c !== 0) return c;
  }
  return Math.sign(a.length - b.length);
}

function compare(a: SemVer, b: SemVer): number {
  const core = a.core.map((n, i) => Math.sign(n - (b.core[i] ?? 0))).find((c) => c !== 0);
  return core ?? comparePre(a.pre, b.pre);
}

export function isUpdatePath(target: string, current: string | undefined): boolean {
  if (current === undefined || current === '') return false;
  const t = parse(target);
  const c = parse(current);
  return t === undefined || c === undefined || compare(t, c) > 0;
}
