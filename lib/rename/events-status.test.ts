import { describe, expect, it } from '@jest/globals';
import { rewriteDocument } from './document.ts';
import { KV, roundTrip } from './testing/round-trip-rows.ts';
import { deepFreeze, kvRename, kvRestore } from './testing/synthetic-rules.ts';

const IG = 'internal.virtualization.deckhouse.io';

describe('Events', () => {
  roundTrip(
    'core/v1 Event',
    KV,
    {
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name: 'e' },
      involvedObject: { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', name: 'vmi', uid: 'u' },
      reason: 'Started',
    },
    {
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name: 'e' },
      involvedObject: {
        apiVersion: `${IG}/v1`,
        kind: 'InternalVirtualizationVirtualMachineInstance',
        name: 'vmi',
        uid: 'u',
      },
      reason: 'Started',
    },
  );
  roundTrip(
    'events.k8s.io EventList (regarding, related)',
    KV,
    {
      kind: 'EventList',
      apiVersion: 'events.k8s.io/v1',
      items: [
        {
          metadata: { name: 'e' },
          regarding: { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', name: 'vm' },
          related: { apiVersion: 'v1', kind: 'Pod', name: 'p' },
        },
      ],
    },
    {
      kind: 'EventList',
      apiVersion: 'events.k8s.io/v1',
      items: [
        {
          metadata: { name: 'e' },
          regarding: { apiVersion: `${IG}/v1`, kind: 'InternalVirtualizationVirtualMachine', name: 'vm' },
          related: { apiVersion: 'v1', kind: 'Pod', name: 'p' },
        },
      ],
    },
  );
});

describe('Status', () => {
  it.each([
    [
      {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'NotFound',
        code: 404,
        message: `internalvirtualizationvirtualmachines.${IG} "vm1" not found`,
        details: { name: 'vm1', group: IG, kind: 'internalvirtualizationvirtualmachines' },
      },
      {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'NotFound',
        code: 404,
        message: 'virtualmachines.kubevirt.io "vm1" not found',
        details: { name: 'vm1', group: 'kubevirt.io', kind: 'virtualmachines' },
      },
    ],
    [
      {
        kind: 'Status',
        code: 422,
        message: `InternalVirtualizationVirtualMachine.${IG} "vm1" is invalid`,
        details: { name: 'vm1', group: IG, kind: 'InternalVirtualizationVirtualMachine' },
      },
      {
        kind: 'Status',
        code: 422,
        message: 'VirtualMachine.kubevirt.io "vm1" is invalid',
        details: { name: 'vm1', group: 'kubevirt.io', kind: 'VirtualMachine' },
      },
    ],
  ])('restores the names in a Status (%#)', (input, expected) => {
    expect(rewriteDocument(deepFreeze(input), kvRestore)).toEqual(expected);
  });

  it('leaves other Status objects alone', () => {
    const st = deepFreeze({ kind: 'Status', code: 404, details: { name: 'p', kind: 'pods' } });
    expect(rewriteDocument(st, kvRestore)).toBe(st);
    expect(rewriteDocument(st, kvRename)).toBe(st);
  });
});
