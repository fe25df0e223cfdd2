/**
 * Memory a launcher Pod needs beyond the guest's RAM (the formula of kubevirt renderresources.go
 * GetMemoryOverhead, tag v1.6.2, with our own constants where our launcher differs).
 *
 * Fixed per-process figures, and where they come from (measured on the project's build machine, Node 24.22.3,
 * libvirt 9.0 from Debian bookworm, 2026-11):
 * - launcher 80Mi (KubeVirt: virt-launcher-monitor 25Mi + virt-launcher 100Mi = 125Mi). Our launcher is one
 *   Node process run from the image's bundle (dist/virt, node --lite-mode --max-semi-space-size=1): RSS
 *   62.8 MiB idle and 64.2 MiB after five SyncVirtualMachine rounds (`npm run bench -- launcher`), of which
 *   20 MiB anonymous; 80Mi leaves room for larger domains and GC slack.
 * - libvirtd 40Mi (KubeVirt's virtqemud figure, kept): an idle session libvirtd measured 25 MiB RSS; a daemon
 *   holding a running domain grows, so KubeVirt's margin stays.
 * - virtlogd 20Mi (KubeVirt: 25Mi): an idle session virtlogd measured 17 MiB RSS.
 * - qemu 30Mi: KubeVirt's figure (same QEMU, not re-measured here).
 * Everything else follows KubeVirt: page tables (memory/512), 8Mi per vCPU and 8Mi for the IOThread, 32Mi
 * video RAM unless autoattachGraphicsDevice is false, 128Mi of pflash on arm64, 1Gi for VFIO devices, 256Mi
 * for SEV, 53Mi for a TPM (swtpm), 1Mi for downward metrics, 100Mi + 10Mi per exec probe, 100Mi for dedicated
 * CPUs or Guaranteed QoS, then × additionalGuestMemoryOverheadRatio. Re-measure when the launcher changes.
 */
import { hasTpm, parseQuantity, quantityValue } from '../../kubevirt/index.ts';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { vcpusOf } from '../../kubevirt/vmi-state.ts';

const Mi = 2 ** 20;

export interface OverheadConstants {
  launcherBytes: number;
  libvirtdBytes: number;
  virtlogdBytes: number;
  qemuBytes: number;
}

export const OUR_OVERHEAD: OverheadConstants = {
  launcherBytes: 80 * Mi,
  libvirtdBytes: 40 * Mi,
  virtlogdBytes: 20 * Mi,
  qemuBytes: 30 * Mi,
};

/** KubeVirt v1.6.2's figures, for comparison and for clusters that run KubeVirt's launcher. */
export const KUBEVIRT_OVERHEAD: OverheadConstants = {
  launcherBytes: 125 * Mi,
  libvirtdBytes: 40 * Mi,
  virtlogdBytes: 25 * Mi,
  qemuBytes: 30 * Mi,
};

export interface OverheadOptions {
  constants?: OverheadConstants;
  /** The cluster's architecture when the VMI names none. */
  defaultArch?: string;
  /** additionalGuestMemoryOverheadRatio, e.g. 1.5. */
  ratio?: number;
}

type Spec = VirtualMachineInstance['spec'];

/** Memory request of the guest in bytes: resources.requests.memory, else memory.guest, else 0. */
export function guestMemoryRequest(spec: Spec): number {
  const request = spec.domain.resources?.requests?.['memory'];
  if (request !== undefined) return parseQuantity(request, 'spec.domain.resources.requests.memory');
  const guest = spec.domain.memory?.guest;
  return guest === undefined ? 0 : parseQuantity(guest, 'spec.domain.memory.guest');
}

function vcpusForOverhead(spec: Spec): number {
  const { cpu, resources } = spec.domain;
  if (cpu !== undefined) return Math.max(1, vcpusOf(cpu));
  const limit = resources?.limits?.['cpu'];
  if (limit !== undefined) return Math.max(1, quantityValue(limit, 'spec.domain.resources.limits.cpu'));
  const request = resources?.requests?.['cpu'];
  return Math.max(
    1,
    request === undefined ? 0 : quantityValue(request, 'spec.domain.resources.requests.cpu'),
  );
}

/** Guaranteed QoS: memory and CPU requests set and equal to their limits. */
export function wantsGuaranteedQos(spec: Spec): boolean {
  const r = spec.domain.resources;
  const same = (k: string): boolean => {
    const req = r?.requests?.[k];
    const lim = r?.limits?.[k];
    return (
      req !== undefined &&
      lim !== undefined &&
      parseQuantity(req, `spec.domain.resources.requests.${k}`) !== 0 &&
      parseQuantity(req, `spec.domain.resources.requests.${k}`) ===
        parseQuantity(lim, `spec.domain.resources.limits.${k}`)
    );
  };
  return same('memory') && same('cpu');
}

/** [applies, bytes] per device-related overhead. */
const DEVICE_OVERHEADS: readonly [(spec: Spec, arch: string) => boolean, number][] = [
  [(s): boolean => s.domain.devices.autoattachGraphicsDevice !== false, 32 * Mi],
  [(_s, arch): boolean => arch === 'arm64', 128 * Mi],
  [
    (s): boolean =>
      (s.domain.devices.gpus?.length ?? 0) > 0 || (s.domain.devices.hostDevices?.length ?? 0) > 0,
    1024 * Mi,
  ],
  [(s): boolean => s.volumes?.some((v) => v.downwardMetrics !== undefined) === true, Mi],
  [(s): boolean => s.domain.launchSecurity !== undefined, 256 * Mi],
  [hasTpm, 53 * Mi],
];

function deviceOverhead(spec: Spec, arch: string): number {
  return DEVICE_OVERHEADS.reduce((sum, [applies, bytes]) => (applies(spec, arch) ? sum + bytes : sum), 0);
}

function probeOverhead(spec: Spec): number {
  const isExec = (p: unknown): boolean => typeof p === 'object' && p !== null && 'exec' in p;
  const probes = [spec.livenessProbe, spec.readinessProbe].filter(isExec).length;
  return probes === 0 ? 0 : 100 * Mi + probes * 10 * Mi;
}

/** The overhead in bytes (rounded to whole kB, as KubeVirt's scaled quantities are). */
export function memoryOverheadBytes(
  vmi: Pick<VirtualMachineInstance, 'spec'>,
  opts: OverheadOptions = {},
): number {
  const spec = vmi.spec;
  const c = opts.constants ?? OUR_OVERHEAD;
  const arch = spec.architecture ?? opts.defaultArch ?? 'amd64';
  const pagetables = Math.floor(Math.ceil(guestMemoryRequest(spec) / 1000) / 512) * 1000;
  let bytes = pagetables + c.launcherBytes + c.libvirtdBytes + c.virtlogdBytes + c.qemuBytes;
  bytes += vcpusForOverhead(spec) * 8 * Mi + 8 * Mi;
  bytes += deviceOverhead(spec, arch) + probeOverhead(spec);
  if (spec.domain.cpu?.dedicatedCpuPlacement === true || wantsGuaranteedQos(spec)) bytes += 100 * Mi;
  if (opts.ratio !== undefined && opts.ratio !== 1) {
    bytes += Math.trunc(Math.ceil(bytes / 1000) * (opts.ratio - 1)) * 1000;
  }
  return bytes;
}
