/**
 * Where an attachment Pod's image volume lies in the handler's own mount namespace, pure (kubevirt
 * pkg/virt-handler/isolation ParentPathForRootMount, which the Deckhouse fork's hotplugged containerDisks use
 * for the image container's root). The kernel cannot bind-mount a file of another mount namespace, so the disk
 * of a hotplugged containerDisk is taken from the mount the container runtime made on the node for the image
 * volume, found by what the kernel writes in mountinfo: the mount at the image's mount path in the attachment
 * container (/proc/<pid>/mountinfo) and a mount of ours with the same device whose root holds the container
 * mount's root. No tenant writes either text.
 */

export interface MountInfoEntry {
  /** `major:minor` of the filesystem. */
  readonly device: string;
  /** The directory of that filesystem the mount shows. */
  readonly root: string;
  readonly mountPoint: string;
}

/** mountinfo's octal escapes (`\040` for a space) undone. */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** The entries of a mountinfo text (proc(5)): fields 3, 4 and 5 of each line. */
export function parseMountInfo(text: string): MountInfoEntry[] {
  const out: MountInfoEntry[] = [];
  for (const line of text.split('\n')) {
    const [, , device, root, mountPoint] = line.split(' ');
    if (device === undefined || root === undefined || mountPoint === undefined) continue;
    out.push({ device, root: unescape(root), mountPoint: unescape(mountPoint) });
  }
  return out;
}

/** The mount on `mountPoint` (the last one: it hides any below it), if any. */
export function mountAt(entries: readonly MountInfoEntry[], mountPoint: string): MountInfoEntry | undefined {
  return entries.filter((e) => e.mountPoint === mountPoint).at(-1);
}

/** `root` below `outer` (equal counts), as the path components from `outer` down; undefined otherwise. */
function below(outer: string, root: string): string[] | undefined {
  const o = outer.split('/').filter((p) => p !== '');
  const r = root.split('/').filter((p) => p !== '');
  if (r.some((p) => p === '.' || p === '..')) return undefined;
  if (o.length > r.length || o.some((p, i) => r[i] !== p)) return undefined;
  return r.slice(o.length);
}

/**
 * Where the filesystem tree `wanted` shows (a mount of another namespace) is visible among our `own` mounts:
 * the mount of the same device whose root holds that tree most closely, and the path to it. Undefined when
 * no mount of ours shows it.
 */
export function visibleAt(wanted: MountInfoEntry, own: readonly MountInfoEntry[]): string | undefined {
  let best: { path: string; depth: number } | undefined;
  for (const e of own) {
    if (e.device !== wanted.device) continue;
    const rest = below(e.root, wanted.root);
    if (rest === undefined) continue;
    const depth = e.root.split('/').filter((p) => p !== '').length;
    if (best === undefined || depth > best.depth) best = { path: [e.mountPoint, ...rest].join('/'), depth };
  }
  return best?.path.replace(/\/+/g, '/');
}
