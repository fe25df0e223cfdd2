/**
 * A VM's storage as KubeVirt's storage admitter sees it (pkg/storage/admitters vm-storage-admitter.go Admit,
 * data-volume-template.go, vm-storage-status.go): DataVolume templates in the VM's namespace (on update only
 * when they changed), and while a snapshot or restore runs, no change to volumes or to how the VM runs.
 */
import type { VirtualMachine } from '../v1/objects.ts';
import type { VirtualMachineSpec } from '../v1/vm.ts';
import { firstFailing, invalid, notSupported, type Causes } from './causes.ts';
import { semanticEqual } from './equality.ts';

type Vm = Pick<VirtualMachine, 'metadata' | 'spec' | 'status'>;

function namespaceCauses(vm: Vm, oldVm: Vm | undefined, requestNamespace: string): Causes {
  if (oldVm !== undefined && semanticEqual(oldVm.spec.dataVolumeTemplates, vm.spec.dataVolumeTemplates))
    return [];
  const target = (vm.metadata.namespace ?? '') !== '' ? (vm.metadata.namespace ?? '') : requestNamespace;
  return (vm.spec.dataVolumeTemplates ?? []).flatMap((dv, i) => {
    const meta = dv.metadata as { namespace?: unknown } | null | undefined;
    const ns = typeof meta?.namespace === 'string' ? meta.namespace : '';
    return ns === '' || ns === target
      ? []
      : [
          invalid(
            `spec.dataVolumeTemplates[${i}]`,
            `Embedded DataVolume namespace ${ns} differs from VM namespace ${target}`,
          ),
        ];
  });
}

/** VirtualMachine.RunStrategy(): running maps to Always/Halted, neither means Halted, both is unknown (''). */
function runStrategyOf(spec: VirtualMachineSpec): string {
  if (spec.running !== undefined && spec.runStrategy !== undefined) return '';
  if (spec.running !== undefined) return spec.running ? 'Always' : 'Halted';
  return spec.runStrategy ?? 'Halted';
}

/** compareRunningSpec: the same running, or the same runStrategy; anything else counts as a change. */
function sameRunning(a: VirtualMachineSpec, b: VirtualMachineSpec): boolean {
  if (a.running !== undefined && b.running !== undefined) return a.running === b.running;
  if (a.runStrategy !== undefined && b.runStrategy !== undefined) return a.runStrategy === b.runStrategy;
  return false;
}

function sameVolumes(a: VirtualMachineSpec, b: VirtualMachineSpec): boolean {
  const x = a.template.spec.volumes ?? [];
  const y = b.template.spec.volumes ?? [];
  return x.length === y.length && x.every((v, i) => semanticEqual(v, y[i]));
}

function snapshotCauses(vm: Vm, oldVm: Vm): Causes {
  const snapshot = vm.status?.snapshotInProgress;
  if (snapshot === undefined) return [];
  const name = JSON.stringify(snapshot);
  if (!sameVolumes(oldVm.spec, vm.spec)) {
    return [notSupported('spec', `Cannot update vm disks or volumes until snapshot ${name} completes`)];
  }
  if (!sameRunning(oldVm.spec, vm.spec)) {
    return [notSupported('spec', `Cannot update vm running state until snapshot ${name} completes`)];
  }
  return [];
}

function restoreCauses(vm: Vm, oldVm: Vm): Causes {
  const restore = vm.status?.restoreInProgress;
  if (restore === undefined || semanticEqual(oldVm.spec, vm.spec)) return [];
  if (runStrategyOf(oldVm.spec) === runStrategyOf(vm.spec)) return [];
  return [
    notSupported('spec', `Cannot update VM runStrategy until restore ${JSON.stringify(restore)} completes`),
  ];
}

export function vmStorageCauses(vm: Vm, oldVm: Vm | undefined, requestNamespace: string): Causes {
  return firstFailing(
    () => namespaceCauses(vm, oldVm, requestNamespace),
    () => (oldVm === undefined ? [] : snapshotCauses(vm, oldVm)),
    () => (oldVm === undefined ? [] : restoreCauses(vm, oldVm)),
  );
}
