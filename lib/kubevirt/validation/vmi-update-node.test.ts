import { describe, expect, it } from '@jest/globals';
import type { AdmissionCause } from './causes.ts';
import { GATES } from './context.ts';
import { ctxWith, inv } from './testing/fixtures.ts';
import { changed, running, type Change } from './testing/vmis.ts';
import { validateVmiUpdate, type VmiUpdateContext } from './vmi-update.ts';

describe('validateVmiUpdate: NodeRestriction', () => {
  const handler = (nodeName: string | undefined): VmiUpdateContext => ({
    ...ctxWith([GATES.NODE_RESTRICTION]),
    isKubevirtServiceAccount: true,
    virtHandler: { nodeName },
  });

  it.each<[string, VmiUpdateContext, Change, AdmissionCause[]]>([
    ['the VMI node', handler('node-1'), () => undefined, []],
    [
      'no node name',
      handler(undefined),
      () => undefined,
      [inv('', 'Node restriction failed, virt-handler service account is missing node name')],
    ],
    [
      'another node',
      handler('node-2'),
      () => undefined,
      [inv('', 'Node restriction, virt-handler is only allowed to modify VMIs it owns')],
    ],
    [
      'setting the migration target',
      handler('node-1'),
      (v) => (v.status = { ...v.status, migrationState: { targetNode: 'node-2' } }),
      [inv('', 'Node restriction, virt-handler is not allowed to set target node')],
    ],
    [
      'another node without the gate: held to its node all the same',
      { ...ctxWith(), isKubevirtServiceAccount: true, virtHandler: { nodeName: 'node-2' } },
      () => undefined,
      [inv('', 'Node restriction, virt-handler is only allowed to modify VMIs it owns')],
    ],
  ])('%s', (_name, ctx, change, expected) => {
    expect(validateVmiUpdate(running(), changed(change), ctx)).toEqual(expected);
  });

  it('the migration target node', () => {
    const old = changed((v) => (v.status = { ...v.status, migrationState: { targetNode: 'node-2' } }));
    expect(validateVmiUpdate(old, old, handler('node-2'))).toEqual([]);
  });
});
