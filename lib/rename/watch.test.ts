import { describe, expect, it } from '@jest/globals';
import { KvError } from '../kernel/errors/errors.ts';
import { SKIP } from './json.ts';
import { deepFreeze, kvRestore } from './testing/synthetic-rules.ts';
import { rewriteWatchEvent } from './watch.ts';

const IG = 'internal.virtualization.deckhouse.io';
const INT = `kubevirt.${IG}`;

describe('watch events', () => {
  const renamedVmi = {
    apiVersion: `${IG}/v1`,
    kind: 'InternalVirtualizationVirtualMachineInstance',
    metadata: { name: 'v', labels: { [`${INT}/nodeName`]: 'n1' } },
  };
  const vmi = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'v', labels: { 'kubevirt.io/nodeName': 'n1' } },
  };

  it.each(['ADDED', 'MODIFIED', 'DELETED'])('%s: the object is restored', (type) => {
    expect(rewriteWatchEvent(deepFreeze({ type, object: structuredClone(renamedVmi) }), kvRestore)).toEqual({
      type,
      object: vmi,
    });
  });

  it('BOOKMARK: only apiVersion and kind', () => {
    const bookmark = {
      type: 'BOOKMARK',
      object: {
        apiVersion: `${IG}/v1`,
        kind: 'InternalVirtualizationVirtualMachineInstance',
        metadata: { resourceVersion: '12', annotations: { 'k8s.io/initial-events-end': 'true' } },
      },
    };
    expect(rewriteWatchEvent(deepFreeze(bookmark), kvRestore)).toEqual({
      type: 'BOOKMARK',
      object: {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachineInstance',
        metadata: { resourceVersion: '12', annotations: { 'k8s.io/initial-events-end': 'true' } },
      },
    });
  });

  it('ERROR: a Status', () => {
    const ev = deepFreeze({
      type: 'ERROR',
      object: {
        kind: 'Status',
        apiVersion: 'v1',
        code: 410,
        reason: 'Expired',
        message: 'too old resource version',
      },
    });
    expect(rewriteWatchEvent(ev, kvRestore)).toBe(ev);
  });

  it('an excluded object makes the event SKIP', () => {
    expect(rewriteWatchEvent({ type: 'ADDED', object: vmi }, kvRestore)).toBe(SKIP);
  });

  it('core objects get the watched kind when they omit theirs', () => {
    const ev = {
      type: 'MODIFIED',
      object: {
        metadata: { name: 'p', labels: { [INT]: 'virt-launcher' } },
        spec: { nodeSelector: { [`${INT}/schedulable`]: 'true' } },
      },
    };
    expect(rewriteWatchEvent(ev, kvRestore, { kind: 'Pod', apiVersion: 'v1' })).toEqual({
      type: 'MODIFIED',
      object: {
        metadata: { name: 'p', labels: { 'kubevirt.io': 'virt-launcher' } },
        spec: { nodeSelector: { 'kubevirt.io/schedulable': 'true' } },
      },
    });
  });

  it('an unknown event type is a decode error', () => {
    expect(() => rewriteWatchEvent({ type: 'WHATEVER', object: {} }, kvRestore)).toThrow(KvError);
    expect(() => rewriteWatchEvent({ type: 'WHATEVER' }, kvRestore)).toThrow(/unknown watch event type/);
  });
});
