import { beforeEach, describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { MemoryRecorder } from '../../kernel/controller/events.ts';
import { Store } from '../../kernel/informer/store.ts';
import { RecordingClient } from '../../kernel/kube/testing/recording-client.ts';
import type { ResourceClaim, ResourceSlice } from '../../kubevirt/core/dra.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { vmi } from '../../kubevirt/testing/objects.ts';
import { vmiIndexers } from '../vmi/indexers.ts';
import { DraStatusController } from './controller.ts';
import { BY_DRIVER_POOL, slicePoolIndex } from './handlers.ts';
import { claim, draPod, draVmi, slice } from './testing.ts';

let client: RecordingClient;
let recorder: MemoryRecorder;
let vmis: Store<VirtualMachineInstance>;
let pods: Store<Pod>;
let claims: Store<ResourceClaim>;
let slices: Store<ResourceSlice>;
let c: DraStatusController;

beforeEach(() => {
  client = new RecordingClient();
  recorder = new MemoryRecorder();
  vmis = new Store({ freeze: true });
  pods = new Store({ freeze: true, indexers: vmiIndexers });
  claims = new Store({ freeze: true });
  slices = new Store({ freeze: true, indexers: { [BY_DRIVER_POOL]: slicePoolIndex } });
  c = new DraStatusController({ client, vmis, pods, claims, slices, recorder });
});

const KEY = 'default/testvm';
const usb = draVmi({ hostDevices: [{ name: 'usb1', claimName: 'usb', requestName: 'req' }] });

function patchBodies(): unknown[] {
  return client.actions.filter((a) => a.verb === 'patch').map((a) => a.body);
}

describe('DraStatusController', () => {
  it('writes the device status once; the same status again is not written', async () => {
    vmis.add(usb);
    pods.add(draPod({ usb: 'c' }));
    claims.add(claim('c', ['req', 'dev-1']));
    slices.add(slice({ 'dev-1': { bus: { string: '001' }, deviceNumber: { string: '002' } } }));
    await c.reconcile(KEY);
    const status = {
      hostDeviceStatuses: [
        {
          name: 'usb1',
          deviceResourceClaimStatus: {
            resourceClaimName: 'c',
            name: 'dev-1',
            attributes: { usbAddress: { bus: 1, deviceNumber: 2 } },
          },
        },
      ],
    };
    expect(patchBodies()).toEqual([
      { metadata: { resourceVersion: '20' }, status: { deviceStatus: status } },
    ]);
    expect(recorder.events).toEqual([]);
    vmis.add({ ...usb, status: { ...usb.status, deviceStatus: status } });
    await c.reconcile(KEY);
    expect(patchBodies()).toHaveLength(1);
  });

  it('an allocated device with no attribute to attach it by is written and warned about', async () => {
    vmis.add(usb);
    pods.add(draPod({ usb: 'c' }));
    claims.add(claim('c', ['req', 'device-00']));
    slices.add(slice({ 'device-00': {} }));
    await c.reconcile(KEY);
    expect(patchBodies()).toHaveLength(1);
    expect(recorder.events.map((e) => [e.type, e.reason])).toEqual([['Warning', 'DRADeviceNotAttachable']]);
    expect(recorder.events[0]?.message).toMatch(/device-00 allocated for usb1 in ResourceClaim c/);
  });

  it('nothing while the Pod has not reported its claims, for VMIs without DRA devices, or final ones', async () => {
    vmis.add(usb);
    pods.add(draPod({ usb: null }));
    await c.reconcile(KEY);
    vmis.add(vmi((v) => (v.status = { phase: 'Scheduled', nodeName: 'n1' })));
    pods.add(draPod({ usb: 'c' }));
    await c.reconcile(KEY);
    vmis.add({ ...usb, status: { phase: 'Failed', nodeName: 'n1' } });
    await c.reconcile(KEY);
    expect(client.actions).toEqual([]);
  });
});
