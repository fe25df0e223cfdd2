/**
 * The launcher libvirt's qemu.conf (a session daemon reads `$XDG_CONFIG_HOME/libvirt/qemu.conf`), as kubevirt
 * virtwrap/util/libvirt_helper.go configureQemuConf writes it: `hugetlbfs_mount` naming the Pod's hugepages
 * emptyDir when there is one, so libvirt backs a hugepages guest from it (the domain's `<hugepages/>` takes
 * that mount's page size). KubeVirt writes it whenever /dev/hugepages exists; here it must also be a hugetlbfs,
 * since libvirt refuses to start its QEMU driver on a mount that is not one.
 */
import { statfs } from 'node:fs/promises';
import { join } from 'node:path';

/** statfs f_type of a hugetlbfs (linux/magic.h HUGETLBFS_MAGIC). */
const HUGETLBFS_MAGIC = 0x958458f6;

/** Where a launcher Pod mounts its hugepages emptyDir, below the launcher's root. */
const HUGEPAGES_DIR = 'dev/hugepages';

export interface QemuConfOptions {
  /** A hugetlbfs mount for hugepages guests. */
  readonly hugetlbfs?: string | undefined;
}

/** The file's content; libvirt's defaults for everything it does not name. */
export function qemuConf(o: QemuConfOptions): string {
  const lines = ['# Written by the launcher on each start.'];
  if (o.hugetlbfs !== undefined) lines.push(`hugetlbfs_mount = ${JSON.stringify(o.hugetlbfs)}`);
  return `${lines.join('\n')}\n`;
}

type Statfs = (path: string) => Promise<{ type: number }>;

/** `<root>/dev/hugepages` when it is a hugetlbfs mount, else undefined (absent, or some other filesystem). */
export async function findHugetlbfs(root: string, stat: Statfs = statfs): Promise<string | undefined> {
  const dir = join(root, HUGEPAGES_DIR);
  try {
    return (await stat(dir)).type === HUGETLBFS_MAGIC ? dir : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
