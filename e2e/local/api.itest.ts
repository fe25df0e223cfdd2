/**
 * The api on the real local cluster, reached the way users reach it (testing/api-stack.ts: through the
 * aggregation layer, webhooks registered by URL at the rewriter's webhook proxy):
 * - a user whose Role allows virtualmachines/addvolume adds a volume, one without it gets 403;
 * - a console websocket through kube-apiserver, the api and the handler reads the guest's serial console;
 * - the admission webhooks reject an invalid VM with the field named and give a VM created through them the
 *   controller's finalizer and KubeVirt's defaults.
 * The api and the webhook proxy run in this process; the handler is the host process of the suite.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { WebSocket } from 'ws';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachine,
  type VirtualMachineInstance,
} from '../../lib/kubevirt/index.ts';
import { FINALIZERS } from '../../lib/kubevirt/labels.ts';
import type { RestConfig } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { MARKER } from '../../testenv/guests/guests.ts';
import {
  handlerConsole,
  startApiStack,
  type Answer,
  type ApiStack,
  type HandlerConsole,
} from './testing/api-stack.ts';
import { readConsoleThroughApi } from './api-console.ts';
import { virtSuite } from './testing/suite.ts';
import { gvr } from './virt-registration.ts';
import { agentVm, exampleVm } from './virt.ts';

const ROLES = gvr('rbac.authorization.k8s.io/v1', 'roles', 'Role', true);
const ROLE_BINDINGS = gvr('rbac.authorization.k8s.io/v1', 'rolebindings', 'RoleBinding', true);

let handlerSide: HandlerConsole | undefined;
let stack: ApiStack | undefined;
const s = virtSuite('api', {
  handler: true,
  handlerFlags: async (dir) => {
    handlerSide = await handlerConsole(dir, 'api-test-pki');
    return handlerSide.flags;
  },
  // Once the namespace is gone (its VMs' finalizers went through the webhooks) and while the clients still
  // work: the APIService and the webhook configurations go with the api.
  cleanup: async () => {
    await stack?.stop();
  },
});

let admin: RestConfig;
const ready = (): ApiStack => {
  if (stack === undefined) throw new Error('the api stack is not up');
  return stack;
};
const kubeCall = (method: string, path: string, o?: { user?: string; body?: string }): Promise<Answer> =>
  ready().call(method, path, o);
const subresource = (resource: string, name: string, sub: string): string =>
  ready().subresource(resource, name, sub);

beforeAll(async () => {
  if (handlerSide === undefined) throw new Error('the suite made no handler certificates');
  stack = await startApiStack({
    kubeconfig: s.c.kubeconfig,
    ns: s.ns,
    direct: s.clients.direct,
    handler: handlerSide,
    webhooks: true,
  });
  admin = stack.admin;
}, 600_000);

describe('the api on node local', () => {
  it('rejects an invalid VM at its webhook with the field named, and mutates a valid one', async () => {
    const bad = await exampleVm(s.ns, 'bad');
    bad.spec.running = true;
    const refused = await s.clients.kv.create(VIRTUAL_MACHINES, bad).then(
      () => undefined,
      (e: unknown) =>
        e as { status?: { code?: number; message?: string; details?: { causes?: { field?: string }[] } } },
    );
    expect(refused?.status?.code).toBe(422);
    expect(refused?.status?.message).toMatch(/mutually exclusive/);
    expect(refused?.status?.details?.causes?.map((c) => c.field)).toContain('spec.running');
    const vm = await agentVm(s.ns, 'a');
    await s.clients.kv.create(VIRTUAL_MACHINES, vm);
    const stored = await s.clients.kv.get<VirtualMachine>(VIRTUAL_MACHINES, 'a', { namespace: s.ns });
    expect(stored.metadata.finalizers).toContain(FINALIZERS.VIRTUAL_MACHINE_CONTROLLER);
    expect(stored.spec.template.spec.domain.firmware?.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(stored.spec.template.spec.domain.machine?.type).toBe('q35');
  }, 60_000);

  it('reads the guest’s serial console through kube-apiserver, the api and the handler', async () => {
    await waitFor(
      async () => {
        const vmi = await s.clients.kv
          .get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, 'a', { namespace: s.ns })
          .catch(() => undefined);
        return vmi?.status?.phase === 'Running';
      },
      'the VMI a Running',
      { timeoutMs: 180_000, intervalMs: 500 },
    );
    const text = await readConsoleThroughApi(admin, {
      namespace: s.ns,
      name: 'a',
      until: MARKER,
      timeoutMs: 240_000,
    });
    expect(text).toContain(MARKER);
  }, 300_000);

  it('relays VNC through kube-apiserver, and passes preserveSession on to the handler', async () => {
    const vnc = new URL(subresource('virtualmachineinstances', 'a', 'vnc'), admin.server);
    vnc.protocol = 'wss:';
    const open = (url: URL): Promise<WebSocket | number> =>
      new Promise((resolve, reject) => {
        const ws = new WebSocket(url, ['plain.kubevirt.io'], {
          ca: admin.ca,
          cert: admin.cert,
          key: admin.key,
        });
        ws.once('open', () => {
          resolve(ws);
        });
        ws.once('unexpected-response', (_req, res) => {
          resolve(res.statusCode ?? 0);
        });
        ws.once('error', reject);
      });
    const first = await open(vnc);
    if (typeof first === 'number') throw new Error(`VNC refused with ${first}`);
    const greeting = await new Promise<string>((resolve) =>
      first.once('message', (d: Buffer) => {
        resolve(d.toString());
      }),
    );
    expect(greeting).toMatch(/^RFB 003\.00\d/);
    const kept = new URL(vnc);
    kept.searchParams.set('preserveSession', 'true');
    expect(await open(kept)).toBe(503);
    first.close(1000);
  }, 120_000);

  it('lets a user with RBAC for virtualmachines/addvolume add a volume, and refuses one without it', async () => {
    const body = JSON.stringify({
      name: 'hp',
      disk: { disk: { bus: 'scsi' } },
      volumeSource: { persistentVolumeClaim: { claimName: 'claim-1' } },
    });
    const path = subresource('virtualmachines', 'a', 'addvolume');
    const denied = await kubeCall('PUT', path, { user: 'mallory', body });
    expect(denied.status).toBe(403);
    await s.clients.direct.create(ROLES, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'volumes', namespace: s.ns },
      rules: [
        {
          apiGroups: ['subresources.kubevirt.io'],
          resources: ['virtualmachines/addvolume'],
          verbs: ['update'],
        },
      ],
    });
    await s.clients.direct.create(ROLE_BINDINGS, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'alice-volumes', namespace: s.ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'volumes' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    });
    const ok = await waitFor(
      async () => {
        const a = await kubeCall('PUT', path, { user: 'alice', body });
        return a.status !== 403 && a;
      },
      'alice allowed',
      { timeoutMs: 30_000, intervalMs: 1000 },
    );
    expect(ok).toEqual({ status: 202, text: '' });
    const vm = await s.clients.kv.get<VirtualMachine>(VIRTUAL_MACHINES, 'a', { namespace: s.ns });
    expect(JSON.stringify(vm.status?.volumeRequests ?? vm.spec.template.spec.volumes)).toContain('claim-1');
    expect((await kubeCall('PUT', path, { user: 'mallory', body })).status).toBe(403);
  }, 120_000);

  it('adds a volume to the running VMI and removes it again, as JSON patches of its spec', async () => {
    const vmiPath = subresource('virtualmachineinstances', 'a', 'addvolume');
    const body = JSON.stringify({
      name: 'hp-vmi',
      disk: { disk: { bus: 'scsi' } },
      volumeSource: { persistentVolumeClaim: { claimName: 'claim-2' } },
    });
    const spec = async (): Promise<VirtualMachineInstance['spec']> =>
      (await s.clients.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, 'a', { namespace: s.ns }))
        .spec;
    // The VMI belongs to VM a: with the HotplugVolumes gate (on in Deckhouse) KubeVirt lets it take volumes. The
    // VM controller is applying the previous test's volume request to this VMI's spec at the same time; the
    // patch's `test` refuses to write over that, and a client tries again on such a conflict.
    let last: Answer | undefined;
    const pastConflicts = (path: string, b: string): Promise<Answer> =>
      waitFor(
        async () => {
          last = await kubeCall('PUT', path, { body: b });
          return last.status !== 409 && last.status !== 422 && last;
        },
        () => `${path} past the conflicts (last: ${last?.status ?? 0} ${last?.text ?? ''})`,
        { timeoutMs: 25_000, intervalMs: 1000 },
      );
    const accepted = await pastConflicts(vmiPath, body);
    expect(accepted).toEqual({ status: 202, text: '' });
    const added = await spec();
    expect(added.volumes?.find((v) => v.name === 'hp-vmi')?.persistentVolumeClaim).toEqual({
      claimName: 'claim-2',
      hotpluggable: true,
    });
    expect(added.domain.devices.disks?.find((d) => d.name === 'hp-vmi')?.disk).toEqual({ bus: 'scsi' });
    const removed = await pastConflicts(
      subresource('virtualmachineinstances', 'a', 'removevolume'),
      JSON.stringify({ name: 'hp-vmi' }),
    );
    expect(removed).toEqual({ status: 202, text: '' });
    expect((await spec()).volumes?.some((v) => v.name === 'hp-vmi')).toBe(false);
  }, 60_000);
});
