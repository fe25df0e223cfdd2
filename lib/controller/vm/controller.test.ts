import { beforeEach, describe, expect, it } from '@jest/globals';
import type { VirtualMachine, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { alreadyExists, conflict, forbidden } from '../../kernel/kube/testing/recording-client.ts';
import { harness, type Harness } from '../testing/harness.ts';
import {
  onSpec,
  T0,
  vm,
  vmDeleting,
  vmi,
  vmiDeleting,
  withoutVmFinalizer,
  withPhase,
  withStartRequest,
  withStopRequest,
  withStrategy,
} from '../../kubevirt/testing/objects.ts';
import {
  addClaim,
  draDevice,
  removeClaim,
  templateClaim,
  withHostDevice,
  withResourceClaim,
} from '../../kubevirt/testing/resource-claims.ts';
import { VmController } from './controller.ts';
import { vmiHandlerForVms } from './handlers.ts';

const KEY = 'default/testvm';
let h: Harness;
let c: VmController;

beforeEach(() => {
  h = harness();
  c = new VmController({
    client: h.client,
    vms: h.vms,
    vmis: h.vmis,
    clock: h.clock,
    recorder: h.recorder,
    random: () => 0,
  });
});

const load = (v: VirtualMachine, i?: VirtualMachineInstance): void => {
  h.vms.add(v);
  if (i !== undefined) h.vmis.add(i);
};
const run = (): Promise<unknown> => c.reconcile(KEY, h.ctx);
const body = (n: number): Record<string, unknown> => h.client.actions[n]?.body as Record<string, unknown>;

describe('VmController', () => {
  it('Always, no VMI: creates the VMI; the status waits for the event of the new VMI', async () => {
    load(vm());
    await run();
    expect(h.client.log).toEqual(['create virtualmachineinstances default/testvm']);
    expect(body(0)).toMatchObject({
      metadata: {
        name: 'testvm',
        ownerReferences: [{ kind: 'VirtualMachine', uid: 'vm-uid-1', controller: true }],
      },
    });
    expect(h.recorder.events).toEqual([
      {
        kind: 'VirtualMachine',
        name: 'testvm',
        type: 'Normal',
        reason: 'SuccessfulCreate',
        message: 'Started the virtual machine by creating the new virtual machine instance testvm',
      },
    ]);
    const created = vmi();
    h.vmis.add(created);
    vmiHandlerForVms(c, h.vms, () => undefined).onAdd?.(created);
    await run();
    expect(h.client.log).toEqual([
      'create virtualmachineinstances default/testvm',
      'patch virtualmachines default/testvm status',
    ]);
    expect(body(1)).toMatchObject({
      metadata: { resourceVersion: '10' },
      status: { printableStatus: 'Starting', created: true, ready: false },
    });
  });

  it('a new VM: the finalizer patch and the VMI creation go out together', async () => {
    load(vm(withoutVmFinalizer));
    await run();
    expect(h.client.log).toEqual([
      'patch virtualmachines default/testvm',
      'create virtualmachineinstances default/testvm',
    ]);
    expect(body(0)).toEqual({
      metadata: { finalizers: ['kubevirt.io/virtualMachineControllerFinalize'], resourceVersion: '10' },
    });
  });

  it('never creates a second VMI while the first is not in the cache (expectations, stale cache)', async () => {
    load(vm());
    await run();
    // A newer VM version arrives (e.g. a label change), the VMI is still not in the cache.
    h.vms.add(vm((v) => (v.metadata.resourceVersion = '11')));
    await run();
    await run();
    expect(h.client.log.filter((a) => a.startsWith('create'))).toHaveLength(1);
  });

  it('skips a sync while the cache still holds the version it wrote from', async () => {
    load(vm(withStrategy('Halted')), vmi(withPhase('Running')));
    await run();
    expect(h.client.log).toHaveLength(2);
    await run();
    expect(h.client.log).toHaveLength(2);
  });

  it('creates again once the creation was observed and the VMI went away', async () => {
    load(vm());
    await run();
    const handler = vmiHandlerForVms(c, h.vms, () => undefined);
    const created = vmi();
    handler.onAdd?.(created);
    handler.onDelete?.(created);
    h.vms.add(vm((v) => (v.metadata.resourceVersion = '12')));
    await run();
    expect(h.client.log.filter((a) => a.startsWith('create'))).toHaveLength(2);
  });

  it('a failed create lowers the expectation, records Failure and a Warning, and requeues', async () => {
    load(vm());
    h.client.failNext('create', 'virtualmachineinstances', forbidden('exceeded quota'));
    await expect(run()).rejects.toThrow(/exceeded quota/);
    expect(c.expectations.satisfiedExpectations(KEY)).toBe(true);
    expect(body(1)).toMatchObject({
      status: {
        conditions: expect.arrayContaining([
          expect.objectContaining({ type: 'Failure', reason: 'FailedCreate' }),
        ]),
      },
    });
    expect(h.recorder.events.map((e) => `${e.type} ${e.reason}`)).toEqual(['Warning FailedCreate']);
  });

  it('AlreadyExists from a stale cache is not an error', async () => {
    load(vm());
    h.client.failNext('create', 'virtualmachineinstances', alreadyExists());
    await expect(run()).resolves.toBeUndefined();
    expect(h.recorder.events).toEqual([]);
  });

  it('Halted with a running VMI: deletes it with a uid precondition, then Stopping', async () => {
    load(vm(withStrategy('Halted')), vmi(withPhase('Running')));
    await run();
    expect(h.client.log).toEqual([
      'delete virtualmachineinstances default/testvm',
      'patch virtualmachines default/testvm status',
    ]);
    expect(h.client.actions[0]?.options).toMatchObject({ preconditions: { uid: 'vmi-uid-1' } });
    expect(body(1)).toMatchObject({ status: { printableStatus: 'Stopping', created: true } });
    expect(h.recorder.events.map((e) => e.reason)).toEqual(['SuccessfulDelete']);
  });

  it('RerunOnFailure with a Failed VMI: deletes it and queues a Start request in the same status write', async () => {
    const v = vm(withStrategy('RerunOnFailure'), (x) => (x.status = { runStrategy: 'RerunOnFailure' }));
    load(
      v,
      vmi(
        withPhase('Failed', 'Running'),
        (x) => (x.metadata.finalizers = ['kubevirt.io/virtualMachineControllerFinalize']),
      ),
    );
    await run();
    expect(h.client.log).toEqual([
      'delete virtualmachineinstances default/testvm',
      'patch virtualmachines default/testvm status',
      'patch virtualmachineinstances default/testvm',
    ]);
    expect(body(1)).toMatchObject({ status: { stateChangeRequests: [{ action: 'Start' }] } });
    expect(body(2)).toEqual({ metadata: { finalizers: [], resourceVersion: '20' } });
  });

  it('Halted with a Start request and no VMI: switches the VM to Always', async () => {
    load(vm(withStrategy('Halted'), withStartRequest()));
    await run();
    expect(h.client.log).toEqual([
      'patch virtualmachines default/testvm',
      'patch virtualmachines default/testvm status',
    ]);
    expect(body(0)).toEqual({ spec: { runStrategy: 'Always' }, metadata: { resourceVersion: '10' } });
    // The status write is conditioned on the version the spec patch produced.
    expect((body(1)['metadata'] as { resourceVersion: string }).resourceVersion).not.toBe('10');
  });

  it('Always with a stop request for the running VMI: restarts by deleting it', async () => {
    load(vm(withStopRequest()), vmi(withPhase('Running')));
    await run();
    expect(h.client.log[0]).toBe('delete virtualmachineinstances default/testvm');
  });

  it('nothing to do and nothing changed: no write at all', async () => {
    const i = vmi(withPhase('Running'));
    load(vm(), i);
    await run();
    // Feed the written status back as the cache's VM.
    const status = body(0)['status'] as NonNullable<VirtualMachine['status']>;
    h.vms.add(vm((v) => ((v.status = status), (v.metadata.resourceVersion = '99'))));
    h.client.actions.length = 0;
    await run();
    expect(h.client.log).toEqual([]);
  });

  it('VM being deleted: deletes the VMI, then drops the finalizer once the VMI is gone', async () => {
    load(vm(vmDeleting), vmi(withPhase('Running')));
    await run();
    expect(h.client.log[0]).toBe('delete virtualmachineinstances default/testvm');
    h.vmis.delete(vmi());
    vmiHandlerForVms(c, h.vms, () => undefined).onDelete?.(vmi());
    h.vms.add(vm(vmDeleting, (v) => (v.metadata.resourceVersion = '50')));
    h.client.actions.length = 0;
    await run();
    expect(h.client.log[0]).toBe('patch virtualmachines default/testvm');
    expect(body(0)).toEqual({ metadata: { finalizers: [], resourceVersion: '50' } });
  });

  it('a VMI of the same name owned by another VM is left alone', async () => {
    load(
      vm(),
      vmi((x) => ((x.metadata.ownerReferences ?? [])[0]!.uid = 'someone-else')),
    );
    await run();
    expect(h.client.log).toEqual(['patch virtualmachines default/testvm status']);
  });

  it('an orphan VMI of the same name is adopted', async () => {
    load(
      vm(),
      vmi(withPhase('Running'), (x) => delete x.metadata.ownerReferences),
    );
    await run();
    expect(h.client.log[0]).toBe('patch virtualmachineinstances default/testvm');
    expect(body(0)).toMatchObject({ metadata: { ownerReferences: [{ uid: 'vm-uid-1', controller: true }] } });
  });

  it('backoff: requeues after the time left, no create', async () => {
    load(
      vm(
        (v) =>
          (v.status = {
            startFailure: {
              consecutiveFailCount: 1,
              lastFailedVMIUID: 'x',
              retryAfterTimestamp: new Date(T0 + 30_000).toISOString(),
            },
          }),
      ),
    );
    await expect(run()).resolves.toEqual({ requeueAfterMs: 30_000 });
    expect(h.client.log.filter((a) => a.startsWith('create'))).toEqual([]);
  });

  it('a status conflict is retried', async () => {
    load(vm(withStrategy('Halted')));
    h.client.failNext('patch', 'virtualmachines', conflict());
    await expect(run()).rejects.toThrow(/modified/);
  });

  it('volume requests go into the template and the running VMI', async () => {
    const req = {
      addVolumeOptions: {
        name: 'hp',
        disk: { name: 'hp', disk: { bus: 'scsi' as const } },
        volumeSource: { persistentVolumeClaim: { claimName: 'c' } },
      },
    };
    load(
      vm((v) => (v.status = { volumeRequests: [req] })),
      vmi(withPhase('Running')),
    );
    await run();
    expect(h.client.log).toEqual([
      'patch virtualmachines default/testvm',
      'patch virtualmachineinstances default/testvm',
      'patch virtualmachines default/testvm status',
    ]);
    expect(body(0)).toMatchObject({
      spec: {
        template: {
          spec: { volumes: [{ name: 'hp', persistentVolumeClaim: { claimName: 'c', hotpluggable: true } }] },
        },
      },
    });
    expect(body(1)).toMatchObject({
      spec: { volumes: [{ name: 'hp' }], domain: { devices: { disks: [{ name: 'hp' }] } } },
    });
    // The template now reflects the request: it is dropped from the status.
    expect(body(2)).toMatchObject({ status: { volumeRequests: null } });
  });

  it('resource claim requests (Deckhouse fork) go into the template and the running VMI, no restart', async () => {
    load(
      vm((v) => (v.status = { resourceClaimRequests: [addClaim('gpu1')] })),
      vmi(withPhase('Running')),
    );
    await run();
    expect(h.client.log).toEqual([
      'patch virtualmachines default/testvm',
      'patch virtualmachineinstances default/testvm',
      'patch virtualmachines default/testvm status',
    ]);
    const claims = [{ name: 'gpu1', resourceClaimTemplateName: 'gpu1-template', hotpluggable: true }];
    const hostDevices = [draDevice('gpu1')];
    expect(body(0)).toMatchObject({
      spec: { template: { spec: { resourceClaims: claims, domain: { devices: { hostDevices } } } } },
    });
    expect(body(1)).toMatchObject({ spec: { resourceClaims: claims, domain: { devices: { hostDevices } } } });
    expect(body(2)).toMatchObject({ status: { resourceClaimRequests: null } });
    const conditions = (body(2) as { status: { conditions: { type: string }[] } }).status.conditions;
    expect(conditions.map((c) => c.type)).not.toContain('RestartRequired');
  });

  it('a resource claim remove drops the device from the template and the running VMI', async () => {
    const hot = onSpec(withResourceClaim(templateClaim('gpu1')), withHostDevice(draDevice('gpu1')));
    load(
      vm(hot, (v) => (v.status = { resourceClaimRequests: [removeClaim('gpu1')] })),
      vmi(withPhase('Running'), hot),
    );
    await run();
    expect(h.client.log).toEqual([
      'patch virtualmachines default/testvm',
      'patch virtualmachineinstances default/testvm',
      'patch virtualmachines default/testvm status',
    ]);
    const none = { resourceClaims: [], domain: { devices: { hostDevices: [] } } };
    expect(body(0)).toMatchObject({ spec: { template: { spec: none } } });
    expect(body(1)).toMatchObject({ spec: none });
  });

  it('a running VMI that already has the requested device is not patched again', async () => {
    load(
      vm((v) => (v.status = { resourceClaimRequests: [addClaim('gpu1')] })),
      vmi(
        withPhase('Running'),
        onSpec(withResourceClaim(templateClaim('gpu1')), withHostDevice(draDevice('gpu1'))),
      ),
    );
    await run();
    expect(h.client.log).toEqual([
      'patch virtualmachines default/testvm',
      'patch virtualmachines default/testvm status',
    ]);
  });

  it('a resource claim remove leaves a stopped VM only in the template, and the request once done', async () => {
    load(
      vm(
        withStrategy('Halted'),
        onSpec(withResourceClaim(templateClaim('gpu1')), withHostDevice(draDevice('gpu1'))),
        (v) => (v.status = { printableStatus: 'Stopped', resourceClaimRequests: [removeClaim('gpu1')] }),
      ),
    );
    await run();
    expect(h.client.log).toEqual([
      'patch virtualmachines default/testvm',
      'patch virtualmachines default/testvm status',
    ]);
    expect(body(0)).toMatchObject({
      spec: { template: { spec: { resourceClaims: [], domain: { devices: { hostDevices: [] } } } } },
    });
    expect(body(1)).toMatchObject({ status: { resourceClaimRequests: null } });
  });

  it('a deleted VM: expectations are dropped', async () => {
    c.expectations.expectCreations(KEY, 1);
    await run();
    expect(c.expectations.expectations.getExpectations(KEY)).toBeUndefined();
  });

  it('VMI being deleted under Always: waits (Stopping), no new VMI yet', async () => {
    load(vm(), vmi(withPhase('Running'), vmiDeleting));
    await run();
    expect(h.client.log).toEqual(['patch virtualmachines default/testvm status']);
    expect(body(0)).toMatchObject({ status: { printableStatus: 'Stopping' } });
  });
});

describe('VmController: Start requests', () => {
  it('a VMI created for a Start request consumes it in the same sync', async () => {
    load(vm(withStrategy('Manual'), withStartRequest(), withStartRequest({ paused: 'true' })));
    await run();
    expect(h.client.log).toEqual([
      'create virtualmachineinstances default/testvm',
      'patch virtualmachines default/testvm status',
    ]);
    expect(body(1)).toMatchObject({
      status: { stateChangeRequests: [{ action: 'Start', data: { paused: 'true' } }] },
    });
  });
});
