import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../../kubevirt/index.ts';
import { vm, vmi, withPhase, type Option } from '../../../kubevirt/testing/objects.ts';
import type { VmPlan } from '../patch-plan.ts';
import { badRequest, conflict, internalError, notFound, unmarshalFailed, type Refusal } from '../refusal.ts';
import { patchOf } from '../testing/plans.ts';
import { planEvacuateCancel, type EvacuateCancelRequest } from './evacuate-cancel.ts';

const evacuating: Option<VirtualMachineInstance> = (i) => {
  (i.status ??= {}).evacuationNodeName = 'node1';
};
const marked = vmi(withPhase('Running'), evacuating);
const created = vm((v) => {
  v.status = { created: true };
});
const onVmi = (i: VirtualMachineInstance | undefined, body: unknown = null): EvacuateCancelRequest => ({
  resource: 'virtualmachineinstances',
  namespace: 'default',
  name: 'testvm',
  vmi: i,
  body,
});
const onVm = (
  v: EvacuateCancelRequest['vm'],
  i: VirtualMachineInstance | undefined,
): EvacuateCancelRequest => ({
  ...onVmi(i),
  resource: 'virtualmachines',
  vm: v,
});
const cancel = (dryRun?: string[]): VmPlan => ({
  patches: [
    patchOf(
      'vmi',
      [
        { op: 'test', path: '/status/evacuationNodeName', value: 'node1' },
        { op: 'replace', path: '/status/evacuationNodeName', value: '' },
      ],
      dryRun,
      { kind: 'internal' },
    ),
  ],
  then: { status: 200 },
});

const rows: [string, EvacuateCancelRequest, VmPlan | Refusal][] = [
  ['a marked VMI', onVmi(marked), cancel()],
  ['a dry run', onVmi(marked, { dryRun: ['All'] }), cancel(['All'])],
  ['the VMI of a VM', onVm(created, marked), cancel()],
  ['no VMI', onVmi(undefined), notFound('virtualmachineinstance', 'testvm')],
  [
    'a VMI not evacuated',
    onVmi(vmi(withPhase('Running'))),
    badRequest('vmi default/testvm is not evacuated'),
  ],
  [
    'a bad body, once the mark is seen',
    onVmi(marked, { dryRun: 'All' }),
    unmarshalFailed(
      'json: cannot unmarshal string into Go struct field EvacuateCancelOptions.dryRun of type []string',
    ),
  ],
  [
    'the mark is checked before the body',
    onVmi(vmi(), { dryRun: 'All' }),
    badRequest('vmi default/testvm is not evacuated'),
  ],
  ['no VM', onVm(undefined, marked), notFound('virtualmachine', 'testvm')],
  [
    'a VM that created no VMI',
    onVm(vm(), marked),
    conflict('virtualmachine', 'testvm', 'VMI is not started'),
  ],
  ['a VM without its VMI', onVm(created, undefined), notFound('virtualmachineinstance', 'testvm')],
  [
    'a VMI the VM does not own',
    onVm(
      created,
      vmi(evacuating, (i) => (i.metadata.ownerReferences = [])),
    ),
    internalError('unable to retrieve vmi [testvm] for vm: <nil>'),
  ],
];

describe('planEvacuateCancel (Deckhouse fork)', () => {
  it.each(rows)('%s', (_name, req, want) => {
    expect(planEvacuateCancel(req)).toEqual(want);
  });
});
