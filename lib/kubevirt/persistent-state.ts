/**
 * VM state kept across restarts: a TPM marked persistent and a persistent EFI variable store live on the VM's
 * backend-storage PVC in KubeVirt (kubevirt pkg/tpm/tpm.go HasDevice, HasPersistentDevice;
 * pkg/storage/backend-storage/backend-storage.go HasPersistentEFI, IsBackendStorageNeededForVMI, tag v1.6.2).
 */
import type { VirtualMachineInstanceSpec } from './v1/vmi-spec.ts';

/** The VMI has a TPM: `tpm` is set and not `enabled: false`. */
export function hasTpm(spec: VirtualMachineInstanceSpec): boolean {
  const tpm = spec.domain.devices.tpm;
  return tpm !== undefined && tpm.enabled !== false;
}

/** The VMI has a TPM whose state must outlive the VM's restarts. */
export function hasPersistentTpm(spec: VirtualMachineInstanceSpec): boolean {
  return hasTpm(spec) && spec.domain.devices.tpm?.persistent === true;
}

/** The VMI boots EFI with a variable store that must outlive the VM's restarts. */
export function hasPersistentEfi(spec: VirtualMachineInstanceSpec): boolean {
  return spec.domain.firmware?.bootloader?.efi?.persistent === true;
}

/** The VMI needs a backend-storage PVC. */
export function needsBackendStorage(spec: VirtualMachineInstanceSpec): boolean {
  return hasPersistentTpm(spec) || hasPersistentEfi(spec);
}
