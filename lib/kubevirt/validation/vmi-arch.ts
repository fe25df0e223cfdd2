/**
 * Checks KubeVirt runs on new VMIs only, after the shared spec rules (pkg/virt-api/webhooks hyperv.go
 * ValidateVirtualMachineInstanceHyperv and the per-architecture settings). Hyper-V dependency fields repeat
 * `domain.features.hyperv` (`spec.domain.features.hyperv.domain.features.hyperv.synic`) and the vmx causes have
 * a fixed `spec.` prefix, as KubeVirt's. Only amd64 has its settings checked here; arm64, s390x and ppc64le
 * pass (Deckhouse runs amd64), and any other architecture is refused.
 */
import type { Features } from '../v1/features.ts';
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import { child, invalid, notSupported, required, type Causes } from './causes.ts';
import type { SpecRule } from './rule.ts';

type Hyperv = NonNullable<Features['hyperv']>;
type Toggle = keyof Pick<Hyperv, 'vpindex' | 'synic' | 'vapic' | 'evmcs' | 'ipi' | 'tlbflush' | 'synictimer'>;

const on = (hyperv: Hyperv, name: Toggle): boolean => hyperv[name]?.enabled === true;

/** Feature → the feature it needs, leaves first (KubeVirt's getHypervFeatureDependencies order). */
const DEPENDENCIES: readonly (readonly [Toggle, Toggle])[] = [
  ['evmcs', 'vapic'],
  ['ipi', 'vpindex'],
  ['tlbflush', 'vpindex'],
  ['synictimer', 'synic'],
  ['synic', 'vpindex'],
];

function evmcsCauses(spec: VirtualMachineInstanceSpec, hyperv: Hyperv): Causes {
  if (hyperv.evmcs === undefined || hyperv.evmcs.enabled === false) return [];
  const features = spec.domain.cpu?.features ?? [];
  if (features.length === 0) {
    return [required('spec.domain.cpu.features', 'vmx cpu feature is required when evmcs is set')];
  }
  return features.flatMap((f, i) =>
    f.name === 'vmx' && f.policy !== 'require'
      ? [invalid(`spec.domain.cpu.features[${i}].policy`, 'vmx cpu feature has to be set to require policy')]
      : [],
  );
}

export const hyperv: SpecRule = (spec, _ctx, path) => {
  const features = spec.domain.features;
  const hv = features?.hyperv;
  if (hv === undefined) return [];
  const field = child(path, 'domain', 'features', 'hyperv');
  const doubled = child(field, 'domain', 'features', 'hyperv');
  const deps = DEPENDENCIES.flatMap(([feature, needs]) =>
    on(hv, feature) && !on(hv, needs)
      ? [
          invalid(
            child(doubled, feature),
            `'${child(doubled, feature)}' requires '${child(doubled, needs)}', which was disabled.`,
          ),
        ]
      : [],
  );
  const mode =
    features?.hypervPassthrough === undefined
      ? []
      : [
          invalid(
            field,
            'Cannot explicitly set hyperV features if HypervPassthrough is being used. Please use either HyperV or HypervPassthrough.',
          ),
        ];
  return [...deps, ...evmcsCauses(spec, hv), ...mode];
};

const AMD64_VIDEO: readonly string[] = ['vga', 'cirrus', 'virtio', 'ramfb', 'bochs'];

function amd64(spec: VirtualMachineInstanceSpec, path: string): Causes {
  const { watchdog, video } = spec.domain.devices;
  const causes: Causes = [];
  if (watchdog !== undefined && !(watchdog.i6300esb !== undefined && watchdog.diag288 === undefined)) {
    causes.push(
      notSupported(
        child(path, 'domain', 'devices', 'watchdog'),
        'amd64 only supports I6300ESB watchdog device',
      ),
    );
  }
  const type = video?.type ?? '';
  if (video !== undefined && !AMD64_VIDEO.includes(type)) {
    causes.push(
      notSupported(
        child(path, 'domain', 'devices', 'video', 'type'),
        `video model '${type}' is not supported on amd64 architecture`,
      ),
    );
  }
  return causes;
}

export const perArchitecture: SpecRule = (spec, _ctx, path) => {
  const arch = spec.architecture ?? '';
  if (arch === 'amd64') return amd64(spec, path);
  if (arch === 'arm64' || arch === 's390x' || arch === 'ppc64le') return [];
  return [invalid(child(path, 'architecture'), `unsupported architecture: ${arch}`)];
};
