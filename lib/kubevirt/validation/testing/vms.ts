/** VM fixtures for the VM validator tables: a VM whose template is the valid VMI spec. */
import type { VirtualMachine } from '../../v1/objects.ts';
import { validSpec } from './fixtures.ts';

export type VmChange = (vm: VirtualMachine) => void;

export function validVm(...changes: VmChange[]): VirtualMachine {
  const vm: VirtualMachine = {
    metadata: { name: 'vm', namespace: 'ns' },
    spec: { runStrategy: 'Always', template: { spec: validSpec() } },
  };
  for (const change of changes) change(vm);
  return vm;
}
