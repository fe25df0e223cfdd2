import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '../../kernel/kube/types.ts';
import { disruptionBudgetsToDelete } from './disruption-budget.ts';

const VMI = { namespace: 'default', name: 'testvm' };
type Owner = { kind: string; name: string; controller?: boolean };

const pdb = (name: string, owner?: Owner, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: {
    name,
    namespace: 'default',
    ...(owner && {
      ownerReferences: [
        {
          apiVersion: owner.kind === 'Pod' ? 'v1' : 'kubevirt.io/v1',
          uid: `${name}-owner`,
          controller: true,
          ...owner,
        },
      ],
    }),
    ...extra,
  },
});
const ofVmi = (name = 'testvm'): Owner => ({ kind: 'VirtualMachineInstance', name });

const rows: [string, KubeObject[], string[]][] = [
  ['no PDB: nothing', [], []],
  [
    'the VMI’s PDB: deleted',
    [pdb('kubevirt-disruption-budget-abcde', ofVmi())],
    ['kubevirt-disruption-budget-abcde'],
  ],
  [
    'two of them (one left by a migration): both deleted',
    [pdb('kubevirt-disruption-budget-a', ofVmi()), pdb('kubevirt-disruption-budget-b', ofVmi())],
    ['kubevirt-disruption-budget-a', 'kubevirt-disruption-budget-b'],
  ],
  ['another VMI’s PDB: kept', [pdb('other', ofVmi('othervm'))], []],
  ['a PDB without an owner: kept', [pdb('app-pdb')], []],
  ['a PDB a Pod of that name controls: kept', [pdb('pod-owned', { kind: 'Pod', name: 'testvm' })], []],
  ['owned but not as controller: kept', [pdb('weak', { ...ofVmi(), controller: false })], []],
  [
    'already being deleted: left to finish',
    [pdb('going', ofVmi(), { deletionTimestamp: '2026-01-01T00:00:00Z' })],
    [],
  ],
  ['in another namespace: kept', [pdb('elsewhere', ofVmi(), { namespace: 'other' })], []],
];

describe('disruptionBudgetsToDelete', () => {
  it.each(rows)('%s', (_name, pdbs, want) => {
    expect(disruptionBudgetsToDelete(VMI, pdbs)).toEqual(want);
  });
});
