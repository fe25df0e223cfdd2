import { describe, expect, it } from '@jest/globals';
import type { VirtualMachine, VirtualMachineInstance } from '../../../kubevirt/index.ts';
import { planPortForward, type PortForwardTarget } from './port-forward.ts';

const vmi = (patch: Partial<NonNullable<VirtualMachineInstance['status']>> = {}): VirtualMachineInstance =>
  ({
    metadata: { name: 'a', namespace: 'ns', ownerReferences: [{ uid: 'vm-uid' }] },
    spec: { domain: { devices: {} } },
    status: { phase: 'Running', nodeName: 'n1', interfaces: [{ name: 'default' }], ...patch },
  }) as unknown as VirtualMachineInstance;
const vm = (created: boolean): VirtualMachine =>
  ({ metadata: { name: 'a', uid: 'vm-uid' }, status: { created } }) as unknown as VirtualMachine;

const onVmi = (port: string, protocol?: string): PortForwardTarget => ({
  resource: 'virtualmachineinstances',
  name: 'a',
  port,
  ...(protocol !== undefined && { protocol }),
});
const onVm: PortForwardTarget = { resource: 'virtualmachines', name: 'a', port: '22' };

describe('planPortForward', () => {
  it('calls the handler of the VMI’s node with the port and protocol (tcp when none is given)', () => {
    expect(planPortForward(onVmi('22'), undefined, vmi())).toEqual({
      call: {
        kind: 'stream',
        node: 'n1',
        method: 'GET',
        path: '/v1/namespaces/ns/virtualmachineinstances/a/portforward/22/tcp',
        body: 'none',
      },
    });
    expect(planPortForward(onVmi('53', 'udp'), undefined, vmi())).toMatchObject({
      call: { path: '/v1/namespaces/ns/virtualmachineinstances/a/portforward/53/udp' },
    });
    expect(planPortForward(onVm, vm(true), vmi())).toMatchObject({
      call: { path: '/v1/namespaces/ns/virtualmachineinstances/a/portforward/22/tcp' },
    });
  });

  const refusals: [string, Parameters<typeof planPortForward>, number, string][] = [
    ['port 0', [onVmi('0'), undefined, vmi()], 400, 'invalid port "0": not 1-65535'],
    ['a port above 65535', [onVmi('65536'), undefined, vmi()], 400, 'invalid port "65536"'],
    ['a name for a port', [onVmi('ssh'), undefined, vmi()], 400, 'invalid port "ssh"'],
    ['another protocol', [onVmi('22', 'sctp'), undefined, vmi()], 400, 'invalid protocol "sctp": tcp or udp'],
    ['no VMI', [onVmi('22'), undefined, undefined], 404, 'virtualmachineinstance.kubevirt.io "a" not found'],
    ['no VM', [onVm, undefined, vmi()], 404, 'virtualmachine.kubevirt.io "a" not found'],
    ['a VM that started nothing', [onVm, vm(false), vmi()], 409, 'VMI is not started'],
    [
      'a VMI the VM does not own',
      [onVm, { ...vm(true), metadata: { uid: 'other' } }, vmi()],
      404,
      'not found',
    ],
    [
      'a paused VMI',
      [onVmi('22'), undefined, vmi({ conditions: [{ type: 'Paused', status: 'True' }] })],
      409,
      'VMI is paused',
    ],
    [
      'a VMI that is not running',
      [onVmi('22'), undefined, vmi({ phase: 'Pending' })],
      400,
      'phase is Pending',
    ],
    [
      'a VMI without an interface',
      [onVmi('22'), undefined, vmi({ interfaces: [] })],
      400,
      'no network interfaces are present',
    ],
  ];
  it.each(refusals)('refuses %s', (_, args, status, message) => {
    const plan = planPortForward(...args);
    expect(plan).toMatchObject({ status });
    expect((plan as { message: string }).message).toContain(message);
  });
});
