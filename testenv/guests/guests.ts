/**
 * The test guests built by testenv/guests/build.sh from Debian packages: an uncompressed Debian kernel
 * (vmlinux, booted through its PVH entry with `-kernel` / libvirt `<kernel>`), a busybox initramfs whose
 * /init prints MARKER on ttyS0, an "agent" initramfs that also loads the virtio modules, mounts /dev/vda at
 * /mnt/data and runs qemu-ga on the org.qemu.guest_agent.0 port, and a 16 MiB ext4 data disk (qcow2). With a
 * virtio-net NIC both take a DHCP lease on eth0 and serve GUEST_PORTS; the agent guest also serves ssh.
 * build.sh caches them under ${KV_CACHE_DIR:-~/.cache/kubevirt-ts}/guests/<key>; a warm run is quick.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCacheBuild } from '../cache-build.ts';

/** First word of the line /init prints once the guest is up (then `kernel=<release> variant=...`). */
export const MARKER = 'KUBEVIRT-TS-GUEST-READY';

/**
 * First words of the line /init prints before MARKER when the guest has an eth0: then `<address>/<prefix>`
 * of its DHCP lease, or `none` when no lease came within about 20 s. Absent without a NIC.
 */
export const NET_MARKER = 'KUBEVIRT-TS-GUEST-NET eth0';
/** What a guest prints, once, when DHCPv6 leased eth0 an address: `${NET6_MARKER} <address>/<prefix>`. */
export const NET6_MARKER = 'KUBEVIRT-TS-GUEST-NET6 eth0';

/** What the guests serve once eth0 has an address (ssh on the agent guest only, root with a key). */
export const GUEST_PORTS = {
  /** TCP echo: every byte received is sent back. */
  tcpEcho: 1500,
  /** UDP echo: each datagram is sent back to its sender. */
  udpEcho: 1501,
  /** TCP: answers the guest's hostname (from DHCP; kvts-guest without one) and closes. */
  hostname: 1502,
  ssh: 22,
} as const;

/**
 * The kernel command line parameter that has the agent guest mount a virtiofs tag at /mnt/<tag> before MARKER
 * and print `${VIRTIOFS_MARKER} <tag> <first line of /mnt/<tag>/hello>` (or `mount-failed`, `no-hello`).
 */
export function virtiofsParam(tag: string): string {
  return `kvts.virtiofs=${tag}`;
}
export const VIRTIOFS_MARKER = 'KUBEVIRT-TS-GUEST-VIRTIOFS';

/** The kernel command line parameter that gives root's ssh key to the agent guest (one authorized_keys line). */
export function sshKeyParam(authorizedKey: string): string {
  return `kvts.sshkey=${Buffer.from(authorizedKey.trim()).toString('base64')}`;
}

/** Kernel command line for the guests; add `kvts.poweroff=1` to power off right after the marker. */
export const GUEST_CMDLINE = 'console=ttyS0 quiet';

/** Name of the virtio-serial port qemu-ga listens on in the agent guest. */
export const GUEST_AGENT_PORT = 'org.qemu.guest_agent.0';

const BUILD_SCRIPT = fileURLToPath(new URL('./build.sh', import.meta.url));

export interface Guests {
  /** The cache directory holding every file below. */
  dir: string;
  /** Uncompressed kernel (ELF vmlinux). */
  kernel: string;
  /** Busybox initramfs: prints the marker, then idles with a shell on the console; DHCP and echo ports on eth0. */
  initrd: string;
  /** Initramfs with virtio modules, qemu-ga and ssh; mounts /dev/vda (ext4) at /mnt/data when present. */
  agentInitrd: string;
  /** ext4 data disk, qcow2. Shared by every caller: boot it with snapshot=on or an overlay. */
  dataDisk: string;
  /** uname -r of the guest kernel, e.g. 6.1.0-57-cloud-amd64. */
  kernelVersion: string;
  marker: string;
}

interface Manifest {
  kernel: { release: string };
}

async function load(): Promise<Guests> {
  const dir = await runCacheBuild(BUILD_SCRIPT);
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  return {
    dir,
    kernel: join(dir, 'vmlinux'),
    initrd: join(dir, 'initramfs.cpio.gz'),
    agentInitrd: join(dir, 'initramfs-agent.cpio.gz'),
    dataDisk: join(dir, 'data.ext4.qcow2'),
    kernelVersion: manifest.kernel.release,
    marker: MARKER,
  };
}

let pending: Promise<Guests> | undefined;

/** Builds the guests on first use (once per process; a failed build is retried by the next call). */
export function ensureGuests(): Promise<Guests> {
  pending ??= load().catch((err: unknown) => {
    pending = undefined;
    throw err;
  });
  return pending;
}
