/**
 * A VM's own spec fields (KubeVirt vms-admitter.go validateRunStrategy, validateLiveUpdateFeatures and
 * pkg/storage/admitters/data-volume-template.go ValidateDataVolumeTemplate). The DataVolume template causes
 * sit at `spec.dataVolumeTemplate[i]` (singular) and `….PVC.Storage`, as KubeVirt's.
 */
import { memoryHotplugBlocker } from '../defaults/hotplug.ts';
import type { JsonObject } from '../schema/dsl.ts';
import type { DataVolumeTemplateSpec, VirtualMachineSpec } from '../v1/vm.ts';
import { child, firstFailing, invalid, required, type Causes } from './causes.ts';
import { clusterOf, gateEnabled, GATES, type ValidationContext } from './context.ts';

const VALID_RUN_STRATEGIES: readonly string[] = ['Halted', 'Manual', 'Always', 'RerunOnFailure', 'Once'];

export function runStrategyCauses(spec: VirtualMachineSpec, ctx: ValidationContext, path: string): Causes {
  const causes: Causes = [];
  const running = child(path, 'running');
  if (spec.running !== undefined && spec.runStrategy !== undefined) {
    causes.push(
      invalid(
        running,
        'Running and RunStrategy are mutually exclusive. Note that Running is deprecated, please use RunStrategy instead',
      ),
    );
  }
  if (spec.running === undefined && spec.runStrategy === undefined) {
    causes.push(invalid(running, 'RunStrategy must be specified'));
  }
  const strategy: string | undefined = spec.runStrategy;
  const f = child(path, 'runStrategy');
  if (strategy === 'WaitAsReceiver') {
    if (gateEnabled(ctx, GATES.DECENTRALIZED_LIVE_MIGRATION)) return causes;
    const gate = GATES.DECENTRALIZED_LIVE_MIGRATION;
    causes.push(
      invalid(
        f,
        `Invalid RunStrategy (${strategy}), ${gate} feature gate is not enabled in kubevirt resource`,
      ),
    );
  } else if (strategy !== undefined && !VALID_RUN_STRATEGIES.includes(strategy)) {
    causes.push(invalid(f, `Invalid RunStrategy (${strategy})`));
  }
  return causes;
}

function liveUpdateCpuCauses(spec: VirtualMachineSpec, path: string): Causes {
  const sockets = spec.template.spec.domain.cpu?.sockets ?? 0;
  const max = spec.template.spec.domain.cpu?.maxSockets ?? 0;
  if (sockets === 0 || max === 0 || sockets <= max) return [];
  return [
    invalid(
      child(path, 'template', 'spec', 'domain', 'cpu', 'sockets'),
      'Number of sockets in CPU topology is greater than the maximum sockets allowed',
    ),
  ];
}

export function liveUpdateCauses(spec: VirtualMachineSpec, ctx: ValidationContext, path: string): Causes {
  if (clusterOf(ctx).vmRolloutStrategy !== 'LiveUpdate') return [];
  const template = spec.template.spec;
  const maxGuest = template.domain.memory?.maxGuest;
  const blocker = maxGuest === undefined ? undefined : memoryHotplugBlocker(template, maxGuest);
  return [
    ...liveUpdateCpuCauses(spec, path),
    ...(blocker === undefined
      ? []
      : [invalid(child(path, 'template', 'spec', 'domain', 'memory', 'guest'), blocker)]),
  ];
}

const isSet = (v: unknown): boolean => v !== undefined && v !== null;
const objectAt = (o: JsonObject | undefined, key: string): JsonObject | undefined => {
  const v = o?.[key];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
};

/** The target of a DataVolume: its pvc or its storage, exactly one. */
function storageCauses(dv: DataVolumeTemplateSpec, f: string): Causes {
  const pvc = objectAt(dv.spec, 'pvc');
  const storage = objectAt(dv.spec, 'storage');
  const both = child(f, 'PVC', 'Storage');
  if (pvc === undefined && storage === undefined)
    return [invalid(both, 'Missing Data volume PVC or Storage')];
  if (pvc !== undefined && storage !== undefined) {
    return [invalid(both, 'Duplicate storage definition, both target storage and target pvc defined')];
  }
  return [];
}

/** Where the data comes from: an external populator, or source / sourceRef (one source kind). */
function sourceCauses(dv: DataVolumeTemplateSpec, f: string): Causes {
  const target = objectAt(dv.spec, 'pvc') ?? objectAt(dv.spec, 'storage');
  const external = isSet(target?.['dataSourceRef']) || isSet(target?.['dataSource']);
  const source = objectAt(dv.spec, 'source');
  const sourced = source !== undefined || isSet(dv.spec['sourceRef']);
  if (external && sourced) {
    return [invalid(child(f, 'source'), 'External population is incompatible with Source and SourceRef')];
  }
  if (!external && !sourced) {
    return [
      invalid(
        child(f, 'source', 'sourceRef'),
        'Data volume should have either Source, SourceRef, or be externally populated',
      ),
    ];
  }
  return source === undefined ? [] : sourceKindCauses(source, f);
}

/** validateNumberOfSources: a source names exactly one kind (http, registry, pvc, ...). */
function sourceKindCauses(source: JsonObject, f: string): Causes {
  const count = Object.values(source).filter(isSet).length;
  if (count === 0) return [invalid(child(f, 'source'), 'Missing dataVolume valid source')];
  return count > 1 ? [invalid(child(f, 'source'), 'Multiple dataVolume sources')] : [];
}

/** validateDataVolume: the CDI spec of one template, or [] when it is well formed. */
function dataVolumeCauses(dv: DataVolumeTemplateSpec, f: string): Causes {
  if ((dv.metadata?.name ?? '') === '') {
    const name = child(f, 'name');
    return [required(name, `'name' field must not be empty for DataVolumeTemplate entry ${name}.`)];
  }
  return firstFailing(
    () => storageCauses(dv, f),
    () => sourceCauses(dv, f),
  );
}

export function dataVolumeTemplateCauses(spec: VirtualMachineSpec, path: string): Causes {
  const volumes = spec.template.spec.volumes ?? [];
  return (spec.dataVolumeTemplates ?? []).flatMap((dv, i) => {
    const f = `${child(path, 'dataVolumeTemplate')}[${i}]`;
    const own = dataVolumeCauses(dv, f);
    if (own.length > 0) return own;
    const name = dv.metadata?.name;
    const referenced = volumes.some(
      (v) => v.persistentVolumeClaim?.claimName === name || v.dataVolume?.name === name,
    );
    return referenced
      ? []
      : [
          required(
            f,
            `DataVolumeTemplate entry ${f} must be referenced in the VMI template's 'volumes' list`,
          ),
        ];
  });
}
