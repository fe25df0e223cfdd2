/**
 * vTPM: an emulated TPM 2.0 that libvirt backs with an swtpm process (kubevirt converter.go, the
 * tpm.HasDevice branch of Convert_v1_VirtualMachineInstance_To_api_Domain; pkg/tpm/tpm.go). A persistent TPM
 * keeps its state when the domain is undefined and uses the CRB interface, KubeVirt's choice for it; the
 * plain one stays on TIS. `enabled: false` means no device. Whether a persistent TPM can be honoured at all
 * (its state must outlive the Pod) is unsupported.ts's question, not this one's.
 */
import { hasPersistentTpm, hasTpm } from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';

export const tpmConfigurator: Configurator = configurator((vmi, domain) => {
  if (!hasTpm(vmi.spec)) return;
  const persistent = hasPersistentTpm(vmi.spec);
  domain.devices.tpm = {
    model: persistent ? 'tpm-crb' : 'tpm-tis',
    backend: { type: 'emulator', version: '2.0', ...(persistent && { persistentState: 'yes' }) },
  };
});
