/**
 * Where the launcher's own libvirt keeps its files, all under --root, as in a launcher Pod (kubevirt runs
 * virtqemud and virtlogd in session mode with XDG_* pointing at private directories). In a Pod everything but
 * the config sits in the `libvirt-runtime` emptyDir (/var/run/libvirt); the image makes `/lv` writable for the
 * launcher's user (uid 107), since a Pod's other writable places are too deep for the socket paths below.
 *
 * The QEMU driver of a session daemon puts the monitor and guest-agent sockets under
 * $XDG_CONFIG_HOME/libvirt/qemu/lib/channel/target/domain-<id>-<name>/org.qemu.guest_agent.0, and a unix
 * socket path stops at 107 bytes: XDG_CONFIG_HOME is therefore the short `<root>/lv`.
 *
 * swtpm, which backs a VMI's TPM, runs as the daemons' user (a session daemon has no swtpm_user to switch to)
 * and keeps its directories where libvirt's session defaults put them (qemu_conf.c virQEMUDriverConfigNew):
 * state below XDG_CONFIG_HOME, log beside QEMU's, sockets below XDG_RUNTIME_DIR; swtpm_setup, run with the
 * daemons' environment, writes its local CA config and state below XDG_CONFIG_HOME as well. KubeVirt's
 * non-root launcher gets the same from XDG_CONFIG_HOME=/var/run/kubevirt-private (services.PathForSwtpm,
 * PathForSwtpmLocalca).
 */
import { join, resolve } from 'node:path';

export interface LibvirtLayout {
  /** XDG_CONFIG_HOME: libvirt's config, and QEMU's monitor and channel sockets. */
  readonly config: string;
  /** XDG_RUNTIME_DIR: the daemons' sockets and pid files. */
  readonly run: string;
  /** XDG_CACHE_HOME: the QEMU capabilities cache and QEMU's logs. */
  readonly cache: string;
  readonly home: string;
  /** Daemon logs. */
  readonly log: string;
  /** The libvirtd socket directory. */
  readonly sock: string;
  readonly libvirtdConf: string;
  readonly virtlogdConf: string;
  readonly socketPath: string;
  readonly virtlogdSocket: string;
  /** QEMU's per-domain logs (<domain name>.log). */
  readonly qemuLogDir: string;
  /** Pid files of the running domains. */
  readonly qemuRunDir: string;
  /** swtpm's TPM state, one `<vmi uid>/tpm2` directory per domain (KubeVirt's PathForSwtpm). */
  readonly swtpmStorageDir: string;
  /** swtpm's logs (`<domain name>-swtpm.log`). */
  readonly swtpmLogDir: string;
  /** swtpm's sockets and pid files. */
  readonly swtpmRunDir: string;
  /** swtpm_setup's local CA (KubeVirt's PathForSwtpmLocalca). */
  readonly swtpmLocalCaDir: string;
}

/** Bytes an agent channel path adds to XDG_CONFIG_HOME (domain id up to 3 digits, name cut to 20). */
export const AGENT_SOCKET_SUFFIX_BYTES =
  '/libvirt/qemu/lib/channel/target/domain-999-12345678901234567890/org.qemu.guest_agent.0'.length;

export function libvirtLayout(root: string): LibvirtLayout {
  const r = resolve(root);
  const config = join(r, 'lv');
  const run = join(r, 'var/run/libvirt');
  const cache = join(run, 'cache');
  const log = join(run, 'log');
  const sock = join(run, 'libvirt');
  return {
    config,
    run,
    cache,
    home: join(run, 'home'),
    log,
    sock,
    libvirtdConf: join(config, 'libvirtd.conf'),
    virtlogdConf: join(config, 'virtlogd.conf'),
    socketPath: join(sock, 'libvirt-sock'),
    virtlogdSocket: join(run, 'libvirt', 'virtlogd-sock'),
    qemuLogDir: join(cache, 'libvirt', 'qemu', 'log'),
    qemuRunDir: join(run, 'libvirt', 'qemu', 'run'),
    swtpmStorageDir: join(config, 'libvirt', 'qemu', 'swtpm'),
    swtpmLogDir: join(cache, 'libvirt', 'qemu', 'log'),
    swtpmRunDir: join(run, 'libvirt', 'qemu', 'run', 'swtpm'),
    swtpmLocalCaDir: join(config, 'var', 'lib', 'swtpm-localca'),
  };
}
