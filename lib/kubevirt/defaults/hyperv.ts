/**
 * The Hyper-V enlightenments a VMI's enlightenments need, switched on for it (kubevirt pkg/defaults/hyperv.go
 * SetHypervFeatureDependencies), so QEMU does not refuse the guest later: synic needs vpindex, the SynIC timer
 * synic, ipi and tlbflush vpindex, evmcs vapic; evmcs also needs the vmx CPU feature required. Runs after the
 * API-type defaults, so a feature that is present is on unless it says `enabled: false`.
 */
import type { Features } from '../v1/features.ts';
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';

type Hyperv = NonNullable<Features['hyperv']>;
type Toggle = keyof Pick<Hyperv, 'vpindex' | 'synic' | 'vapic' | 'evmcs' | 'ipi' | 'tlbflush' | 'synictimer'>;
type Needed = Exclude<Toggle, 'synictimer'>;

/** Feature → the feature it needs, leaves first: synictimer switches synic on before synic is looked at. */
const DEPENDENCIES: readonly (readonly [Toggle, Needed])[] = [
  ['evmcs', 'vapic'],
  ['ipi', 'vpindex'],
  ['tlbflush', 'vpindex'],
  ['synictimer', 'synic'],
  ['synic', 'vpindex'],
];

const VMX = { name: 'vmx', policy: 'require' } as const;

/** The vmx CPU feature with policy require: added, or its policy corrected. */
function requireVmx(spec: VirtualMachineInstanceSpec): void {
  const cpu = (spec.domain.cpu ??= {});
  const features = (cpu.features ??= []);
  const vmx = features.find((f) => f.name === VMX.name);
  if (vmx === undefined) features.push({ ...VMX });
  else vmx.policy = VMX.policy;
}

/**
 * Switches on, for each enlightenment that is on, the one it needs when the VMI leaves that one unset. One the
 * VMI switched off ends the pass with what is done so far (and no vmx): validation then refuses the VMI.
 */
export function setHypervDependencies(spec: VirtualMachineInstanceSpec): void {
  const hyperv = spec.domain.features?.hyperv;
  if (hyperv === undefined) return;
  for (const [feature, needed] of DEPENDENCIES) {
    if (hyperv[feature]?.enabled !== true) continue;
    const state = hyperv[needed];
    if (state?.enabled === false) return;
    if (state?.enabled === undefined) hyperv[needed] = { ...state, enabled: true };
  }
  if (hyperv.evmcs !== undefined && hyperv.evmcs.enabled !== false) requireVmx(spec);
}
