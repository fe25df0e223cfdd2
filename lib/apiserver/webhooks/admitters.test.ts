// The admitters with the cluster's KubeVirt CR and the requester's identity: the gates and settings come from
// the CR (KubeVirt's defaults without one), a VMI created by a user starts from an empty status, and a VMI
// update from virt-handler's service account is held to the node its token is bound to.
import { describe, expect, it } from '@jest/globals';
import { FINALIZERS, LABELS, type KubeVirt, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import { validSpec } from '../../kubevirt/validation/testing/fixtures.ts';
import { config, kubevirtCr, type KubeVirtChange } from '../../kubevirt/validation/testing/kubevirts.ts';
import { running } from '../../kubevirt/validation/testing/vmis.ts';
import { WEBHOOKS, webhooksServedBy } from '../../kubevirt/webhooks.ts';
import { FakeClock } from '../../kernel/clock.ts';
import { memoryLogger } from '../../kernel/log/log.ts';
import { handleAdmission } from '../../kubevirt/admission/admit.ts';
import { admitters, NODE_NAME_EXTRA } from './admitters.ts';
import type { JsonPatchOp, UserInfo } from '../../kubevirt/admission/review.ts';
import { lookupWithKubeVirt, reviewBody } from './testing/admission.ts';

const SA = 'system:serviceaccount:d8-virtualization:kubevirt-internal-virtualization';
const CONTROLLER = `${SA}-controller`;
const HANDLER = `${SA}-handler`;
const ALICE: UserInfo = { username: 'alice' };

function table(cr: { current: KubeVirt | undefined }): ReturnType<typeof admitters> {
  return admitters({
    clock: new FakeClock(Date.parse('2026-12-02T00:00:00Z')),
    uuid: () => '11111111-2222-4333-8444-555555555555',
    isOwnServiceAccount: (u) => u === CONTROLLER || u === HANDLER,
    isHandlerServiceAccount: (u) => u === HANDLER,
    lookup: lookupWithKubeVirt(cr),
    log: memoryLogger('virt-api').log,
  });
}

interface Answer {
  readonly allowed: boolean;
  readonly message?: string;
  readonly patch: JsonPatchOp[];
}

async function admit(
  cr: KubeVirt | undefined,
  path: string,
  body: { operation: string; user: UserInfo; object: unknown; oldObject?: unknown },
): Promise<Answer> {
  const a = await handleAdmission(
    table({ current: cr }),
    path,
    reviewBody(body.operation, body.user, body.object, body.oldObject),
  );
  if (a.code !== 200) throw new Error(`answered ${a.code}`);
  const r = a.body.response;
  const patch = JSON.parse(Buffer.from(r.patch ?? 'W10=', 'base64').toString()) as JsonPatchOp[];
  return { allowed: r.allowed, ...(r.status !== undefined && { message: r.status.message }), patch };
}

const gates =
  (...names: string[]): KubeVirtChange =>
  (kv) => {
    config(kv)['developerConfiguration'] = { featureGates: names };
  };
const cr = (...changes: KubeVirtChange[]): KubeVirt => kubevirtCr(...changes);

const newVmi = (change: (v: VirtualMachineInstance) => void): VirtualMachineInstance => {
  const v: VirtualMachineInstance = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'vm', namespace: 'ns' },
    spec: validSpec(),
  };
  change(v);
  return v;
};
const hostDevice = newVmi(
  (v) => (v.spec.domain.devices.hostDevices = [{ name: 'd1', deviceName: 'example.com/dev' }]),
);
const i440fx = newVmi((v) => (v.spec.domain.machine = { type: 'pc-i440fx-7.2' }));
const HOST_DEVICES_OFF = 'Host Devices feature gate is not enabled in kubevirt-config';

describe('the admitters', () => {
  it('serve every path of the webhook table that is the api’s, and only those, for its kind of object', () => {
    const served = table({ current: undefined });
    const ours = webhooksServedBy('api');
    expect(Object.keys(served).sort()).toEqual([...new Set(ours.map((w) => w.path))].sort());
    // An eviction review carries the Eviction, not the Pod.
    for (const w of ours)
      expect(served[w.path]?.kind).toBe(w.subresource === 'eviction' ? 'Eviction' : w.resource.kind);
  });
});

describe('the KubeVirt CR configures admission', () => {
  it.each<[string, KubeVirt | undefined, VirtualMachineInstance, string | undefined]>([
    [
      'no CR: KubeVirt defaults list no gate, a gated device is refused',
      undefined,
      hostDevice,
      HOST_DEVICES_OFF,
    ],
    ['a CR listing HostDevices admits it', cr(gates('HostDevices')), hostDevice, undefined],
    [
      'a CR without that gate refuses it',
      cr(gates('HotplugVolumes', 'Snapshot')),
      hostDevice,
      HOST_DEVICES_OFF,
    ],
    [
      'a CR KubeVirt refuses (memoryOvercommit 0) is not read',
      cr(
        (kv) =>
          (config(kv)['developerConfiguration'] = { featureGates: ['HostDevices'], memoryOvercommit: 0 }),
      ),
      hostDevice,
      HOST_DEVICES_OFF,
    ],
    [
      'a CR being deleted is not read',
      cr(gates('HostDevices'), (kv) => (kv.metadata.deletionTimestamp = '2026-12-01T00:00:00Z')),
      hostDevice,
      HOST_DEVICES_OFF,
    ],
    [
      'no CR: the default emulated machines refuse i440fx',
      undefined,
      i440fx,
      'spec.domain.machine.type is not supported',
    ],
    [
      "the CR's emulated machines admit it",
      cr((kv) => (config(kv)['emulatedMachines'] = ['q35*', 'pc-i440fx*'])),
      i440fx,
      undefined,
    ],
  ])('%s', async (_name, kv, object, refusal) => {
    const a = await admit(kv, WEBHOOKS.vmiValidateCreate.path, { operation: 'CREATE', user: ALICE, object });
    expect(a.allowed).toBe(refusal === undefined);
    if (refusal !== undefined) expect(a.message).toContain(refusal);
  });

  it.each<[string, KubeVirt | undefined, number]>([
    ['no CR: the launcher runs as 107 (KubeVirt defaults)', undefined, 107],
    ['the Root gate of the CR: as root', cr(gates('Root')), 0],
  ])('the VMI mutator: %s', async (_name, kv, uid) => {
    const object = newVmi(() => undefined);
    const a = await admit(kv, WEBHOOKS.vmiMutate.path, { operation: 'CREATE', user: ALICE, object });
    expect(a.patch.find((op) => op.path === '/status')?.value).toMatchObject({ runtimeUser: uid });
  });

  it('keeps the last good configuration once the CR turns invalid or goes away, as KubeVirt', async () => {
    const current: { current: KubeVirt | undefined } = { current: cr(gates('HostDevices')) };
    const t = table(current);
    const create = async (): Promise<boolean> => {
      const a = await handleAdmission(
        t,
        WEBHOOKS.vmiValidateCreate.path,
        reviewBody('CREATE', ALICE, hostDevice),
      );
      return a.code === 200 && a.body.response.allowed;
    };
    expect(await create()).toBe(true);
    current.current = cr((kv) => {
      kv.metadata.resourceVersion = '8';
      config(kv)['developerConfiguration'] = { featureGates: [], memoryOvercommit: 0 };
    });
    expect(await create()).toBe(true);
    current.current = undefined;
    expect(await create()).toBe(true);
    current.current = cr(gates(), (kv) => (kv.metadata.resourceVersion = '9'));
    expect(await create()).toBe(false);
  });
});

describe('a status sent with a VMI create', () => {
  const forged = newVmi((v) => {
    v.status = {
      phase: 'Running',
      nodeName: 'other-node',
      volumeStatus: [{ name: 'root', target: 'vda', hotplugVolume: { attachPodName: 'tenant-b-pod' } }],
    };
  });
  const statusAfter = async (user: UserInfo, object: VirtualMachineInstance): Promise<unknown> => {
    const a = await admit(undefined, WEBHOOKS.vmiMutate.path, { operation: 'CREATE', user, object });
    return a.patch.find((op) => op.path === '/status')?.value;
  };

  it("from a user: cleared, only the mutator's own status is kept", async () => {
    const clean = await statusAfter(
      ALICE,
      newVmi(() => undefined),
    );
    expect(clean).toMatchObject({ phase: 'Pending', runtimeUser: 107 });
    expect(await statusAfter(ALICE, forged)).toEqual(clean);
  });

  it('from our own service account: kept, with the defaults laid on', async () => {
    expect(await statusAfter({ username: CONTROLLER }, forged)).toMatchObject({
      phase: 'Pending',
      nodeName: 'other-node',
      volumeStatus: forged.status?.volumeStatus,
    });
  });
});

describe('NodeRestriction: a VMI update from virt-handler', () => {
  const handlerOn = (node?: string): UserInfo => ({
    username: HANDLER,
    ...(node !== undefined && { extra: { [NODE_NAME_EXTRA]: [node] } }),
  });
  const failed = (v: VirtualMachineInstance): void => {
    v.status = { ...v.status, phase: 'Failed' };
  };
  interface Row {
    readonly kv?: KubeVirt;
    readonly user: UserInfo;
    /** The node of the VMI. */
    readonly node: string;
    readonly change?: (v: VirtualMachineInstance) => void;
    readonly refusal?: string;
  }
  const restricted = cr(gates('NodeRestriction'));

  it.each<[string, Row]>([
    ['its own node', { kv: restricted, user: handlerOn('node-a'), node: 'node-a' }],
    [
      "another node's VMI",
      {
        kv: restricted,
        user: handlerOn('node-a'),
        node: 'node-b',
        refusal: 'Node restriction, virt-handler is only allowed to modify VMIs it owns',
      },
    ],
    [
      'a token without a node',
      {
        kv: restricted,
        user: handlerOn(),
        node: 'node-a',
        refusal: 'Node restriction failed, virt-handler service account is missing node name',
      },
    ],
    [
      'setting the migration target',
      {
        kv: restricted,
        user: handlerOn('node-a'),
        node: 'node-a',
        change: (v) => (v.status = { ...v.status, migrationState: { targetNode: 'node-b' } }),
        refusal: 'Node restriction, virt-handler is not allowed to set target node',
      },
    ],
    [
      "another node's VMI without the gate (no CR): held to its node all the same",
      {
        user: handlerOn('node-a'),
        node: 'node-b',
        refusal: 'Node restriction, virt-handler is only allowed to modify VMIs it owns',
      },
    ],
    [
      'the controller is not held to a node',
      { kv: restricted, user: { username: CONTROLLER }, node: 'node-b' },
    ],
  ])('%s', async (_name, row) => {
    const oldObject = { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', ...running() };
    oldObject.status = { ...oldObject.status, nodeName: row.node };
    const object = structuredClone(oldObject);
    (row.change ?? failed)(object);
    const a = await admit(row.kv, WEBHOOKS.vmiValidateUpdate.path, {
      operation: 'UPDATE',
      user: row.user,
      object,
      oldObject,
    });
    expect(a.allowed).toBe(row.refusal === undefined);
    if (row.refusal !== undefined) expect(a.message).toBe(row.refusal);
  });
});

describe('the migration mutator', () => {
  const migration = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstanceMigration',
    metadata: { name: 'mig', namespace: 'ns', labels: { test: 'test' } },
    spec: { vmiName: 'testvmi' },
  };
  const create = (object: unknown): Promise<Answer> =>
    admit(undefined, WEBHOOKS.migrationMutateCreate.path, { operation: 'CREATE', user: ALICE, object });

  it("labels a new migration with its VMI's name and adds the controller's finalizer", async () => {
    expect(await create(migration)).toEqual({
      allowed: true,
      patch: [
        {
          op: 'add',
          path: '/metadata',
          value: {
            name: 'mig',
            namespace: 'ns',
            labels: { test: 'test', [LABELS.MIGRATION_SELECTOR]: 'testvmi' },
            finalizers: [FINALIZERS.MIGRATION],
          },
        },
      ],
    });
  });

  it('refuses with a 400 a migration that does not decode, or another kind', async () => {
    const bad = await create({ ...migration, spec: { vmiName: 7 } });
    expect(bad.allowed).toBe(false);
    expect(bad.message).toContain('spec.vmiName');
    const vmi = await create(newVmi(() => undefined));
    expect(vmi).toMatchObject({ allowed: false, patch: [] });
    expect(vmi.message).toContain('not a VirtualMachineInstanceMigration');
  });
});
