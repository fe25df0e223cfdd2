/**
 * The api role against the real kube-apiserver (no aggregation layer in between: the test plays the front proxy
 * with the control plane's own front-proxy client certificate, as kube-apiserver would): the request-header
 * configuration read from kube-system/extension-apiserver-authentication, a forged X-Remote-User without a
 * certificate refused with 401, a user without RBAC for virtualmachines/addvolume refused with 403 by the
 * SubjectAccessReview and let through once a Role allows it, addvolume and removevolume written to the VM's
 * status.volumeRequests, the Deckhouse fork's addresourceclaim and removeresourceclaim written to the VM's
 * status.resourceClaimRequests and patched into a running VMI's spec, migrate creating a stored migration of
 * the VM's VMI, the fork's evacuatecancel clearing the VMI's evacuation mark, the pod eviction webhook marking
 * a LiveMigrate VMI for evacuation (not on a dry run), the Deckhouse mode (a certificate from --client-ca-file with the allowed name
 * and X-Remote-User; another name from that CA refused with 401 whatever group it claims), discovery, and a
 * validating webhook answering its caller's certificate with KubeVirt's message and field (a caller without
 * one refused with 401).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { certPaths } from '../../testenv/certs.ts';
import { testCluster, type TestCluster } from '../../testenv/cluster.ts';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachine,
  type VirtualMachineInstance,
  type VirtualMachineInstanceMigration,
} from '../kubevirt/index.ts';
import {
  INTERNAL_VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  INTERNAL_VIRTUAL_MACHINE_INSTANCES,
  INTERNAL_VIRTUAL_MACHINES,
} from '../kubevirt/internal-gvr.ts';
import { onSpec, vm as vmFixture, vmi as vmiFixture } from '../kubevirt/testing/objects.ts';
import {
  addClaim,
  draDevice,
  removeClaim,
  templateClaim,
  withHostDevice,
  withResourceClaim,
} from '../kubevirt/testing/resource-claims.ts';
import { WEBHOOKS } from '../kubevirt/webhooks.ts';
import { PODS, type GroupVersionResource } from '../kernel/kube/index.ts';
import { memoryLogger } from '../kernel/log/log.ts';
import { waitFor } from '../kernel/testing/wait.ts';
import { httpsCall } from '../kernel/tls/testing/https.ts';
import { makeTestPki, pemOf, type TestPem } from '../../testenv/pki.ts';
import { rewritingClient } from '../rename/client/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../rename/index.ts';
import { VIRTUALIZATION_API_PROXY_CN, WEBHOOK_CLIENT_CN } from './auth/index.ts';
import { runApiRole } from './role.ts';

const rbac = (resource: string, kind: string): GroupVersionResource => ({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource,
  kind,
  namespaced: true,
});
const ROLES = rbac('roles', 'Role');
const ROLE_BINDINGS = rbac('rolebindings', 'RoleBinding');

let cluster: TestCluster;
let pki: Record<string, TestPem>;
let stop: AbortController;
let running: Promise<void>;
let port = 0;
const logged = memoryLogger('virt-api', 2);
let frontProxy: TestPem;

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly allow?: string;
}

async function call(
  method: string,
  path: string,
  o: { client?: TestPem; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const a = await httpsCall(new URL(`https://127.0.0.1:${port}${path}`), {
    method,
    ca: pemOf(pki, 'ca').cert,
    cert: o.client?.cert,
    key: o.client?.key,
    ...(o.headers !== undefined && { headers: o.headers }),
    ...(o.body !== undefined && { body: o.body }),
  });
  const allow = a.headers.allow;
  return { status: a.status, text: a.text, ...(allow !== undefined && { allow }) };
}

const webhookCaller = (): TestPem => pemOf(pki, 'webhook-client');
const asUser = (user: string): Record<string, string> => ({
  'X-Remote-User': user,
  'X-Remote-Group': 'testers',
});
const subresourcePath = (resource: string, name: string, sub: string): string =>
  `/apis/subresources.kubevirt.io/v1/namespaces/${cluster.ns}/${resource}/${name}/${sub}`;
const vmPath = (name: string, sub: string): string => subresourcePath('virtualmachines', name, sub);
const addVolume = JSON.stringify({
  name: 'hp',
  disk: { disk: { bus: 'scsi' } },
  volumeSource: { persistentVolumeClaim: { claimName: 'claim-1' } },
});

/** A Role allowing `user` to update these virtualmachines subresources, and its binding. */
async function grant(user: string, resources: string[]): Promise<void> {
  await cluster.direct.create(ROLES, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: user, namespace: cluster.ns },
    rules: [{ apiGroups: ['subresources.kubevirt.io'], resources, verbs: ['update'] }],
  });
  await cluster.direct.create(ROLE_BINDINGS, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: user, namespace: cluster.ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: user },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  });
}

beforeAll(async () => {
  cluster = await testCluster('api', { userAgent: 'kubevirt-ts/api-itest' });
  pki = await makeTestPki([
    { name: 'ca', cn: 'api-test-ca', ca: true },
    { name: 'serving', cn: 'virt-api', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
    {
      name: 'handler-client',
      cn: 'kubevirt.io:system:client:virt-handler',
      issuer: 'ca',
      usage: 'clientAuth',
    },
    { name: 'dvp-ca', cn: 'virtualization-ca', ca: true },
    { name: 'dvp', cn: VIRTUALIZATION_API_PROXY_CN, issuer: 'dvp-ca', usage: 'clientAuth' },
    { name: 'dvp-other', cn: 'virtualization-controller', issuer: 'dvp-ca', usage: 'clientAuth' },
    { name: 'webhook-client', cn: WEBHOOK_CLIENT_CN, issuer: 'ca', usage: 'clientAuth' },
  ]);
  const fp = certPaths(dirname(process.env['KUBECONFIG'] ?? '')).frontProxyClient;
  frontProxy = { cert: readFileSync(fp.cert, 'utf8'), key: readFileSync(fp.key, 'utf8') };
  stop = new AbortController();
  running = runApiRole(
    {
      config: cluster.config,
      port: 0,
      host: '127.0.0.1',
      tls: pemOf(pki, 'serving'),
      clientCa: { caPem: pemOf(pki, 'dvp-ca').cert, allowedNames: [VIRTUALIZATION_API_PROXY_CN] },
      webhookClients: { caPem: pemOf(pki, 'ca').cert, allowedNames: [WEBHOOK_CLIENT_CN] },
      handlers: {
        port: 4101,
        tls: {
          ca: Buffer.from(pemOf(pki, 'ca').cert),
          cert: Buffer.from(pemOf(pki, 'handler-client').cert),
          key: Buffer.from(pemOf(pki, 'handler-client').key),
        },
      },
      ownServiceAccounts: [],
      healthPort: 0,
      healthHost: '127.0.0.1',
      log: logged.log,
    },
    stop.signal,
  );
  port = await waitFor(
    () => logged.lines.find((l) => l['msg'] === 'api listening')?.['port'] as number | undefined,
    'the api listening',
    { timeoutMs: 30_000 },
  );
  const kv = rewritingClient(cluster.direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
  await kv.create(VIRTUAL_MACHINES, { ...vmFixture(), metadata: { name: 'vm1', namespace: cluster.ns } });
  // What the VM controller would have written: a status (the volume requests are patched into it).
  await kv.patch(
    VIRTUAL_MACHINES,
    'vm1',
    { status: { printableStatus: 'Stopped' } },
    { namespace: cluster.ns, type: 'merge', subresource: 'status' },
  );
}, 120_000);

afterAll(async () => {
  stop.abort();
  await running;
  await cluster.close();
}, 60_000);

describe('the api role with the real kube-apiserver', () => {
  it('refuses identity headers without a certificate: 401 as a Status', async () => {
    const a = await call('PUT', vmPath('vm1', 'addvolume'), {
      headers: asUser('system:admin'),
      body: addVolume,
    });
    expect(a.status).toBe(401);
    expect(JSON.parse(a.text)).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
  });

  it('asks a SubjectAccessReview: 403 without RBAC, 202 once a Role allows virtualmachines/addvolume', async () => {
    const denied = await call('PUT', vmPath('vm1', 'addvolume'), {
      client: frontProxy,
      headers: asUser('alice'),
      body: addVolume,
    });
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.text)).toMatchObject({ kind: 'Status', code: 403, reason: 'Forbidden' });
    expect(denied.text).toContain('virtualmachines/addvolume');
    await cluster.direct.create(ROLES, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'volumes', namespace: cluster.ns },
      rules: [
        {
          apiGroups: ['subresources.kubevirt.io'],
          resources: ['virtualmachines/addvolume', 'virtualmachines/removevolume'],
          verbs: ['update'],
        },
      ],
    });
    await cluster.direct.create(ROLE_BINDINGS, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'alice-volumes', namespace: cluster.ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'volumes' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    });
    // The denial is cached for 10 s; RBAC itself takes a moment.
    const ok = await waitFor(
      async () => {
        const a = await call('PUT', vmPath('vm1', 'addvolume'), {
          client: frontProxy,
          headers: asUser('alice'),
          body: addVolume,
        });
        return a.status !== 403 && a;
      },
      'alice allowed',
      { timeoutMs: 30_000, intervalMs: 1000 },
    );
    expect(ok).toMatchObject({ status: 202, text: '' });
    const vm = await cluster.direct.get<VirtualMachine>(INTERNAL_VIRTUAL_MACHINES, 'vm1', {
      namespace: cluster.ns,
    });
    expect(vm.status?.volumeRequests).toEqual([
      {
        addVolumeOptions: {
          name: 'hp',
          disk: { name: 'hp', disk: { bus: 'scsi' } },
          volumeSource: { persistentVolumeClaim: { claimName: 'claim-1', hotpluggable: true } },
        },
      },
    ]);
    const again = await call('PUT', vmPath('vm1', 'addvolume'), {
      client: frontProxy,
      headers: asUser('alice'),
      body: addVolume,
    });
    expect(again.status).toBe(409);
  }, 60_000);

  it('writes addresourceclaim and removeresourceclaim to status.resourceClaimRequests (Deckhouse fork)', async () => {
    await grant('carol', ['virtualmachines/addresourceclaim', 'virtualmachines/removeresourceclaim']);
    // A VM whose template has a hotplugged claim to remove; its status as the VM controller would write it.
    const kv = rewritingClient(cluster.direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
    const vm2 = vmFixture(
      onSpec(withResourceClaim(templateClaim('gpu0')), withHostDevice(draDevice('gpu0'))),
      (v) => (v.metadata = { name: 'vm2', namespace: cluster.ns }),
    );
    await kv.create(VIRTUAL_MACHINES, vm2);
    await kv.patch(
      VIRTUAL_MACHINES,
      'vm2',
      { status: { printableStatus: 'Stopped' } },
      { namespace: cluster.ns, type: 'merge', subresource: 'status' },
    );
    const put = (sub: string, body: unknown): Promise<Answer> =>
      call('PUT', vmPath('vm2', sub), {
        client: frontProxy,
        headers: asUser('carol'),
        body: JSON.stringify(body),
      });
    const requests = async (): Promise<unknown> =>
      (await cluster.direct.get<VirtualMachine>(INTERNAL_VIRTUAL_MACHINES, 'vm2', { namespace: cluster.ns }))
        .status?.resourceClaimRequests;
    // What Deckhouse's virtualization-api sends (add_resourceclaim.go): the claim and the host device named alike.
    const add = {
      name: 'gpu1',
      hostDevice: { name: 'gpu1', claimName: 'gpu1', requestName: 'gpu' },
      resourceClaim: { name: 'gpu1', resourceClaimTemplateName: 'gpu1-template', hotpluggable: true },
    };
    const added = await waitFor(
      async () => {
        const a = await put('addresourceclaim', add);
        return a.status !== 403 && a;
      },
      'carol allowed',
      { timeoutMs: 30_000, intervalMs: 1000 },
    );
    expect(added).toEqual({ status: 202, text: '' });
    expect(await requests()).toEqual([addClaim('gpu1')]);
    expect(await put('removeresourceclaim', { name: 'gpu0' })).toEqual({ status: 202, text: '' });
    expect(await requests()).toEqual([addClaim('gpu1'), removeClaim('gpu0')]);
    const nameless = await put('addresourceclaim', { ...add, name: '' });
    expect(nameless.status).toBe(400);
    expect(JSON.parse(nameless.text)).toMatchObject({
      kind: 'Status',
      code: 400,
      reason: 'BadRequest',
      message: 'AddResourceClaimOptions requires name to be set',
    });
    const dry = await put('addresourceclaim', { ...add, name: 'gpu2', dryRun: ['All'] });
    expect(dry).toEqual({ status: 202, text: '' });
    expect(await requests()).toEqual([addClaim('gpu1'), removeClaim('gpu0')]);
  }, 60_000);

  it('patches addresourceclaim and removeresourceclaim into a running VMI’s spec (Deckhouse fork)', async () => {
    await grant('dave', [
      'virtualmachineinstances/addresourceclaim',
      'virtualmachineinstances/removeresourceclaim',
    ]);
    // A running VMI with a hotplugged claim, as the VMI controller and the handler would have left it.
    const kv = rewritingClient(cluster.direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
    const vmi1 = vmiFixture(
      onSpec(withResourceClaim(templateClaim('gpu0')), withHostDevice(draDevice('gpu0'))),
    );
    await kv.create(VIRTUAL_MACHINE_INSTANCES, {
      ...vmi1,
      metadata: { name: 'vmi1', namespace: cluster.ns },
    });
    // The VMI's status is no subresource (as in KubeVirt): it is written with the object.
    await kv.patch(
      VIRTUAL_MACHINE_INSTANCES,
      'vmi1',
      { status: { phase: 'Running' } },
      { namespace: cluster.ns, type: 'merge' },
    );
    const put = (sub: string, body: unknown): Promise<Answer> =>
      call('PUT', subresourcePath('virtualmachineinstances', 'vmi1', sub), {
        client: frontProxy,
        headers: asUser('dave'),
        body: JSON.stringify(body),
      });
    const devices = async (): Promise<[unknown, unknown]> => {
      const { spec } = await cluster.direct.get<VirtualMachineInstance>(
        INTERNAL_VIRTUAL_MACHINE_INSTANCES,
        'vmi1',
        { namespace: cluster.ns },
      );
      return [spec.resourceClaims, spec.domain.devices.hostDevices];
    };
    const add = {
      name: 'gpu1',
      hostDevice: { name: 'gpu1', claimName: 'gpu1', requestName: 'gpu' },
      resourceClaim: { name: 'gpu1', resourceClaimTemplateName: 'gpu1-template' },
    };
    const added = await waitFor(
      async () => {
        const a = await put('addresourceclaim', add);
        return a.status !== 403 && a;
      },
      'dave allowed',
      { timeoutMs: 30_000, intervalMs: 1000 },
    );
    expect(added).toEqual({ status: 202, text: '' });
    expect(await devices()).toEqual([
      [templateClaim('gpu0'), templateClaim('gpu1')],
      [draDevice('gpu0'), draDevice('gpu1')],
    ]);
    const gpu2 = {
      name: 'gpu2',
      hostDevice: { name: 'gpu2', claimName: 'gpu2', requestName: 'gpu' },
      resourceClaim: { name: 'gpu2', resourceClaimTemplateName: 'gpu2-template' },
      dryRun: ['All'],
    };
    expect(await put('addresourceclaim', gpu2)).toEqual({ status: 202, text: '' });
    expect(await put('removeresourceclaim', { name: 'gpu0' })).toEqual({ status: 202, text: '' });
    expect(await devices()).toEqual([[templateClaim('gpu1')], [draDevice('gpu1')]]);
    const again = await put('removeresourceclaim', { name: 'gpu0' });
    expect(again.status).toBe(409);
    expect(JSON.parse(again.text)).toMatchObject({
      message:
        'Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "vmi1": Unable to remove ResourceClaim [gpu0] because it does not exist',
    });
  }, 60_000);

  it('creates a migration of a running VM’s VMI, and cancels its evacuation (Deckhouse fork)', async () => {
    await grant('erin', ['virtualmachines/migrate', 'virtualmachines/evacuatecancel']);
    const kv = rewritingClient(cluster.direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
    const vm3 = await kv.create<VirtualMachine>(VIRTUAL_MACHINES, {
      ...vmFixture(),
      metadata: { name: 'vm3', namespace: cluster.ns },
    });
    await kv.patch(
      VIRTUAL_MACHINES,
      'vm3',
      { status: { created: true, printableStatus: 'Running' } },
      { namespace: cluster.ns, type: 'merge', subresource: 'status' },
    );
    const owner = {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      name: 'vm3',
      uid: vm3.metadata.uid ?? '',
    };
    await kv.create(VIRTUAL_MACHINE_INSTANCES, {
      ...vmiFixture(),
      metadata: { name: 'vm3', namespace: cluster.ns, ownerReferences: [{ ...owner, controller: true }] },
    });
    const put = (sub: string, body: unknown): Promise<Answer> =>
      call('PUT', vmPath('vm3', sub), {
        client: frontProxy,
        headers: asUser('erin'),
        body: JSON.stringify(body),
      });
    const notRunning = await waitFor(
      async () => {
        const a = await put('migrate', {});
        return a.status !== 403 && a;
      },
      'erin allowed',
      { timeoutMs: 30_000, intervalMs: 1000 },
    );
    expect(notRunning.status).toBe(409);
    expect(JSON.parse(notRunning.text)).toMatchObject({
      message: 'Operation cannot be fulfilled on virtualmachine.kubevirt.io "vm3": VM is not running',
    });
    await kv.patch(
      VIRTUAL_MACHINE_INSTANCES,
      'vm3',
      { status: { phase: 'Running', nodeName: 'node1', evacuationNodeName: 'node1' } },
      { namespace: cluster.ns, type: 'merge' },
    );
    expect(await put('migrate', { addedNodeSelector: { zone: 'a' } })).toEqual({ status: 202, text: '' });
    expect(await put('migrate', { dryRun: ['All'] })).toEqual({ status: 202, text: '' });
    const stored = await cluster.direct.list<VirtualMachineInstanceMigration>(
      INTERNAL_VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
      { namespace: cluster.ns },
    );
    expect(stored.items).toHaveLength(1);
    expect(stored.items[0]?.metadata.name).toMatch(/^kubevirt-migrate-vm-[a-z0-9]{5}$/);
    expect(stored.items[0]?.spec).toEqual({ vmiName: 'vm3', addedNodeSelector: { zone: 'a' } });
    const mark = async (): Promise<unknown> =>
      (
        await cluster.direct.get<VirtualMachineInstance>(INTERNAL_VIRTUAL_MACHINE_INSTANCES, 'vm3', {
          namespace: cluster.ns,
        })
      ).status?.evacuationNodeName;
    expect(await put('evacuatecancel', { dryRun: ['All'] })).toEqual({ status: 200, text: '' });
    expect(await mark()).toBe('node1');
    expect(await put('evacuatecancel', {})).toEqual({ status: 200, text: '' });
    expect(await mark()).toBe('');
    const again = await put('evacuatecancel', {});
    expect(again.status).toBe(400);
    expect(JSON.parse(again.text)).toMatchObject({ message: `vmi ${cluster.ns}/vm3 is not evacuated` });
  }, 60_000);

  it('takes a Deckhouse virtualization-api certificate from --client-ca-file with X-Remote-User', async () => {
    const second = addVolume.replaceAll('"hp"', '"hp2"');
    const a = await call('PUT', vmPath('vm1', 'addvolume'), {
      client: pemOf(pki, 'dvp'),
      headers: asUser('alice'),
      body: second,
    });
    expect(a).toEqual({ status: 202, text: '' });
    // The volume is only requested (no controller runs here): KubeVirt's 409 for removing what is not there.
    const remove = await call('PUT', vmPath('vm1', 'removevolume'), {
      client: pemOf(pki, 'dvp'),
      headers: asUser('alice'),
      body: JSON.stringify({ name: 'hp2' }),
    });
    expect(remove.status).toBe(409);
    // A certificate from a CA the api trusts for nothing (here, the handlers'): its headers are not read.
    const stranger = await call('PUT', vmPath('vm1', 'addvolume'), {
      client: pemOf(pki, 'handler-client'),
      headers: asUser('alice'),
      body: second,
    });
    expect(stranger.status).toBe(401);
    // A certificate of that CA under another name: its claim to be in system:masters is never read.
    const other = await call('PUT', vmPath('vm1', 'addvolume'), {
      client: pemOf(pki, 'dvp-other'),
      headers: { 'X-Remote-User': 'system:admin', 'X-Remote-Group': 'system:masters' },
      body: second.replaceAll('"hp2"', '"hp3"'),
    });
    expect(other.status).toBe(401);
    expect(JSON.parse(other.text)).toMatchObject({
      kind: 'Status',
      code: 401,
      message:
        'Unauthorized: the client certificate has common name "virtualization-controller", which is not in --client-ca-allowed-names',
    });
  }, 30_000);

  it('serves discovery to any client and answers its caller’s webhook review with KubeVirt’s message', async () => {
    const d = await call('GET', '/apis/subresources.kubevirt.io/v1', { client: frontProxy });
    expect(d.status).toBe(200);
    expect(JSON.parse(d.text)).toMatchObject({
      kind: 'APIResourceList',
      groupVersion: 'subresources.kubevirt.io/v1',
    });
    const options = await call('OPTIONS', vmPath('vm1', 'addvolume'), { client: frontProxy });
    expect(options).toMatchObject({ status: 200, allow: expect.stringContaining('PUT') });
    const bad = { ...vmFixture(), spec: { ...vmFixture().spec, running: true } };
    const body = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { uid: 'r1', operation: 'CREATE', userInfo: { username: 'bob' }, object: bad },
    });
    const anonymous = await call('POST', WEBHOOKS.vmValidate.path, { body });
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.text)).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
    const review = await call('POST', WEBHOOKS.vmValidate.path, { client: webhookCaller(), body });
    expect(review.status).toBe(200);
    const response = (JSON.parse(review.text) as { response: Record<string, unknown> }).response;
    expect(response).toMatchObject({ uid: 'r1', allowed: false, status: { code: 422 } });
    expect(JSON.stringify(response)).toContain('"field":"spec.running"');
  }, 30_000);

  it('refuses to evict a LiveMigrate VMI’s launcher Pod and marks the VMI for evacuation from its node', async () => {
    const kv = rewritingClient(cluster.direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
    await kv.create(VIRTUAL_MACHINE_INSTANCES, {
      ...vmiFixture((i) => (i.spec.evictionStrategy = 'LiveMigrate')),
      metadata: { name: 'vmi4', namespace: cluster.ns },
    });
    await kv.patch(
      VIRTUAL_MACHINE_INSTANCES,
      'vmi4',
      {
        status: {
          phase: 'Running',
          nodeName: 'node1',
          conditions: [{ type: 'LiveMigratable', status: 'True' }],
        },
      },
      { namespace: cluster.ns, type: 'merge' },
    );
    const podName = 'virt-launcher-vmi4-abcde';
    await kv.create(PODS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: podName,
        namespace: cluster.ns,
        labels: { 'kubevirt.io': 'virt-launcher' },
        annotations: { 'kubevirt.io/domain': 'vmi4' },
      },
      spec: { nodeName: 'node1', containers: [{ name: 'compute', image: 'virt:test' }] },
    });
    const review = (uid: string, dryRun: boolean): string =>
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: {
          uid,
          kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
          resource: { group: '', version: 'v1', resource: 'pods' },
          subResource: 'eviction',
          name: podName,
          namespace: cluster.ns,
          operation: 'CREATE',
          userInfo: { username: 'drainer' },
          object: {
            apiVersion: 'policy/v1',
            kind: 'Eviction',
            metadata: { name: podName, namespace: cluster.ns },
          },
          dryRun,
        },
      });
    const answer = async (body: string): Promise<unknown> => {
      const a = await call('POST', '/pod-eviction-validate', { client: webhookCaller(), body });
      expect(a.status).toBe(200);
      return (JSON.parse(a.text) as { response: unknown }).response;
    };
    const mark = async (): Promise<unknown> =>
      (
        await cluster.direct.get<VirtualMachineInstance>(INTERNAL_VIRTUAL_MACHINE_INSTANCES, 'vmi4', {
          namespace: cluster.ns,
        })
      ).status?.evacuationNodeName;
    const triggered = `Eviction triggered evacuation of VMI "${cluster.ns}/vmi4"`;
    expect(await answer(review('e1', true))).toEqual({
      uid: 'e1',
      allowed: false,
      status: { code: 429, message: triggered },
    });
    expect(await mark()).toBeUndefined();
    expect(await answer(review('e2', false))).toMatchObject({ status: { code: 429, message: triggered } });
    expect(await mark()).toBe('node1');
    // The webhook reads the VMI live, as KubeVirt does: the next review sees the mark.
    expect(await answer(review('e3', false))).toMatchObject({
      status: { code: 429, message: `Evacuation in progress: ${triggered}` },
    });
  }, 30_000);
});
