/**
 * `<memoryBacking>` (kubevirt converter.go Convert_v1_VirtualMachineInstance_To_api_Domain, the part after
 * setupDomainMemory): hugepages when the VMI asks for them, shared access when it has a virtiofs filesystem,
 * and then memfd as the memory source (unless the VMI's kubevirt.io/memfd annotation is "false" and only
 * hugepages asked for it), with the one NUMA cell memfd needs when nothing else made one.
 *
 * Hugepages come with no `<page>`: libvirt takes its default size, that of the hugetlbfs mount the launcher's
 * qemu.conf names (the Pod's hugepages emptyDir, of the VMI's page size: lib/libvirt/daemon/qemu-conf.ts). A
 * memory device added later without a `<source>` (KubeVirt's virtio-mem for memory hotplug) inherits them.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';

/** The annotation that turns memfd off for a hugepages VMI (KubeVirt's MemfdMemoryBackend). */
const MEMFD_ANNOTATION = 'kubevirt.io/memfd';

/** kubevirt util.IsVMIVirtiofsEnabled: every filesystem the API accepts is a virtiofs one. */
function wantsVirtiofs(vmi: VirtualMachineInstance): boolean {
  return (vmi.spec.domain.devices.filesystems ?? []).length > 0;
}

export const memoryBackingConfigurator: Configurator = configurator((vmi, domain) => {
  const hugepages = vmi.spec.domain.memory?.hugepages !== undefined;
  const virtiofs = wantsVirtiofs(vmi);
  if (!hugepages && !virtiofs) return;
  const memfd = virtiofs || vmi.metadata.annotations?.[MEMFD_ANNOTATION] !== 'false';
  domain.memoryBacking = {
    ...(hugepages && { hugepages: true }),
    ...(memfd && { source: 'memfd' as const }),
    ...(virtiofs && { access: 'shared' as const }),
  };
  if (!memfd || domain.cpu.numa !== undefined) return;
  const cpus = domain.vcpu === 1 ? '0' : `0-${String(domain.vcpu - 1)}`;
  domain.cpu.numa = [{ id: 0, cpus, memoryKiB: Math.floor(domain.memory / 1024) }];
});
