/**
 * VirtualMachine defaults (KubeVirt's VM mutating webhook): instancetype and preference kinds, the template's
 * architecture and machine type, and on create a firmware UUID and serial. Also the effective run strategy.
 */
import { KvError } from '../../kernel/errors/errors.ts';
import type { VirtualMachine } from '../v1/objects.ts';
import type { RunStrategy } from '../v1/vm.ts';
import { DEFAULT_CLUSTER_DEFAULTS, type ClusterDefaults } from './cluster.ts';
import { setArchitecture, setMachineType } from './vmi-spec.ts';

const CLUSTER_INSTANCETYPE_KIND = 'virtualmachineclusterinstancetype';
const CLUSTER_PREFERENCE_KIND = 'virtualmachineclusterpreference';

export interface VmDefaultsOptions {
  /** On create: firmware.uuid and firmware.serial for a template without them (KubeVirt draws random UUIDs). */
  readonly firmwareUuid?: string;
  readonly firmwareSerial?: string;
}

function setFirmwareIds(vm: VirtualMachine, opts: VmDefaultsOptions): void {
  if (opts.firmwareUuid === undefined && opts.firmwareSerial === undefined) return;
  const firmware = (vm.spec.template.spec.domain.firmware ??= {});
  if ((firmware.uuid ?? '') === '' && opts.firmwareUuid !== undefined) firmware.uuid = opts.firmwareUuid;
  if ((firmware.serial ?? '') === '' && opts.firmwareSerial !== undefined)
    firmware.serial = opts.firmwareSerial;
}

export function withVmDefaults(
  vm: VirtualMachine,
  cfg: ClusterDefaults = DEFAULT_CLUSTER_DEFAULTS,
  opts: VmDefaultsOptions = {},
): VirtualMachine {
  const out = structuredClone(vm);
  const { instancetype, preference, template } = out.spec;
  if (instancetype !== undefined && (instancetype.kind ?? '') === '')
    instancetype.kind = CLUSTER_INSTANCETYPE_KIND;
  if (preference !== undefined && (preference.kind ?? '') === '') preference.kind = CLUSTER_PREFERENCE_KIND;
  setFirmwareIds(out, opts);
  setArchitecture(template.spec, cfg);
  setMachineType(template.spec, cfg);
  return out;
}

/** The run strategy in effect: spec.running maps to Always/Halted; neither set means Halted. */
export function runStrategyOf(vm: Pick<VirtualMachine, 'spec'>): RunStrategy {
  const { running, runStrategy } = vm.spec;
  if (running !== undefined && runStrategy !== undefined) {
    throw new KvError('KV_ERR_CONFIG', 'running and runstrategy are mutually exclusive');
  }
  if (running !== undefined) return running ? 'Always' : 'Halted';
  return runStrategy ?? 'Halted';
}
