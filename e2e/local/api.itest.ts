/**
 * The api on the real local cluster, reached the way users reach it:
 * - through the aggregation layer: an APIService for v1.subresources.kubevirt.io backed by a Service whose
 *   EndpointSlice holds the api's address on the node (an APIService cannot name a URL, Endpoints refuse
 *   loopback, and with --enable-aggregator-routing kube-apiserver dials the endpoint itself); kube-apiserver
 *   authenticates the user and sends X-Remote-* with its front-proxy certificate;
 * - a user whose Role allows virtualmachines/addvolume adds a volume, one without it gets 403;
 * - a console websocket through kube-apiserver, the api and the handler reads the guest's serial console;
 * - the admission webhooks, registered by URL at the rewriter's webhook proxy (so they see kubevirt.io names),
 *   reject an invalid VM with the field named and give a VM created through them the controller's finalizer
 *   and KubeVirt's defaults.
 * The api and the webhook proxy run in this process; the handler is the host process of the suite.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WebSocket } from 'ws';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachine,
  type VirtualMachineInstance,
} from '../../lib/api/index.ts';
import { FINALIZERS } from '../../lib/api/labels.ts';
import { runApiRole } from '../../lib/apiserver/role.ts';
import { makeConsolePki, type ConsolePki } from '../../lib/handler/console/testing/pki.ts';
import { loadRestConfig, type GroupVersionResource, type RestConfig } from '../../lib/kernel/kube/index.ts';
import { memoryLogger, nopLogger } from '../../lib/kernel/log/log.ts';
import { newRegistry } from '../../lib/kernel/metrics/registry.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { httpsCall } from '../../lib/kernel/tls/testing/https.ts';
import { makeTestPki, pemOf, type TestPem } from '../../lib/kernel/tls/testing/pki.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../../lib/rename/index.ts';
import { rewriterMetrics } from '../../lib/rewriter/proxy/metrics.ts';
import { startWebhookProxy } from '../../lib/rewriter/proxy/webhook.ts';
import { MARKER } from '../guests/guests.ts';
import { freePorts } from '../testenv/ports.ts';
import { NETWORK } from './layout.ts';
import { consoleServerFlags } from './testing/roles.ts';
import { virtSuite } from './testing/suite.ts';
import { agentVm, exampleVm } from './virt.ts';

const NODE_IP = NETWORK.nodeIp;
/** A resource by its apiVersion (`group/version`, or `v1` for the core group). */
const gvr = (
  apiVersion: string,
  resource: string,
  kind: string,
  namespaced: boolean,
): GroupVersionResource => {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return { group: group ?? '', version: version ?? '', resource, kind, namespaced };
};
const API_SERVICES = gvr('apiregistration.k8s.io/v1', 'apiservices', 'APIService', false);
const SERVICES = gvr('v1', 'services', 'Service', true);
const ENDPOINT_SLICES = gvr('discovery.k8s.io/v1', 'endpointslices', 'EndpointSlice', true);
const ROLES = gvr('rbac.authorization.k8s.io/v1', 'roles', 'Role', true);
const ROLE_BINDINGS = gvr('rbac.authorization.k8s.io/v1', 'rolebindings', 'RoleBinding', true);
const VALIDATING = gvr(
  'admissionregistration.k8s.io/v1',
  'validatingwebhookconfigurations',
  'ValidatingWebhookConfiguration',
  false,
);
const MUTATING = gvr(
  'admissionregistration.k8s.io/v1',
  'mutatingwebhookconfigurations',
  'MutatingWebhookConfiguration',
  false,
);
const APISERVICE = 'v1.subresources.kubevirt.io';

/** A free TCP port on the node's address (below the ephemeral range, as the control plane's). */
const freePort = async (host: string): Promise<number> => (await freePorts(1, Math.random, host))[0] ?? 0;

let consolePki: ConsolePki | undefined;
let handlerConsolePort = 0;
async function handlerFlags(dir: string): Promise<string[]> {
  consolePki = await makeConsolePki();
  handlerConsolePort = await freePort(NODE_IP);
  // The api dials the Node's InternalIP: the console server listens there (the DaemonSet runs with hostNetwork).
  return [
    ...(await consoleServerFlags(dir, 'api-test-pki', consolePki)),
    ...['--console-server-address', NODE_IP, '--console-server-port', String(handlerConsolePort)],
  ];
}
const s = virtSuite('api', { handler: true, handlerFlags });

let admin: RestConfig;
let pki: Record<string, TestPem>;
let stopApi: AbortController | undefined;
let api: Promise<void> | undefined;
let webhookProxy: { close(): Promise<void>; port: number } | undefined;
const apiLog = memoryLogger('virt-api', 2);

interface Answer {
  readonly status: number;
  readonly text: string;
}

/** A request to kube-apiserver as the admin, or as `user` (impersonated: kube-apiserver authenticates as that user). */
async function kubeCall(
  method: string,
  path: string,
  o: { user?: string; body?: string } = {},
): Promise<Answer> {
  const a = await httpsCall(new URL(path, admin.server), {
    method,
    ca: admin.ca,
    cert: admin.cert,
    key: admin.key,
    ...(o.user !== undefined && { headers: { 'Impersonate-User': o.user } }),
    ...(o.body !== undefined && { body: o.body }),
  });
  return { status: a.status, text: a.text };
}

const subresource = (resource: string, name: string, sub: string): string =>
  `/apis/subresources.kubevirt.io/v1/namespaces/${s.ns}/${resource}/${name}/${sub}`;

async function registerAggregation(apiPort: number): Promise<void> {
  const direct = s.clients.direct;
  await direct.create(SERVICES, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'virt-api', namespace: s.ns },
    spec: { ports: [{ name: 'https', port: 443, targetPort: apiPort, protocol: 'TCP' }] },
  });
  await direct.create(ENDPOINT_SLICES, {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: 'virt-api-node',
      namespace: s.ns,
      labels: { 'kubernetes.io/service-name': 'virt-api' },
    },
    addressType: 'IPv4',
    endpoints: [{ addresses: [NODE_IP], conditions: { ready: true } }],
    ports: [{ name: 'https', port: apiPort, protocol: 'TCP' }],
  });
  await direct.delete(API_SERVICES, APISERVICE).catch(() => undefined);
  await direct.create(API_SERVICES, {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: APISERVICE },
    spec: {
      group: 'subresources.kubevirt.io',
      version: 'v1',
      service: { namespace: s.ns, name: 'virt-api', port: 443 },
      caBundle: Buffer.from(pemOf(pki, 'ca').cert).toString('base64'),
      groupPriorityMinimum: 1000,
      versionPriority: 15,
    },
  });
}

async function registerWebhooks(port: number): Promise<void> {
  const ca = Buffer.from(pemOf(pki, 'ca').cert).toString('base64');
  const hook = (name: string, path: string): Record<string, unknown> => ({
    name,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
    clientConfig: { url: `https://127.0.0.1:${port}${path}`, caBundle: ca },
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': s.ns } },
    rules: [
      {
        apiGroups: ['internal.virtualization.deckhouse.io'],
        apiVersions: ['v1'],
        resources: ['internalvirtualizationvirtualmachines'],
        operations: ['CREATE', 'UPDATE'],
      },
    ],
  });
  for (const [res, kind, path] of [
    [VALIDATING, 'ValidatingWebhookConfiguration', '/virtualmachines-validate'],
    [MUTATING, 'MutatingWebhookConfiguration', '/virtualmachines-mutate'],
  ] as const) {
    await s.clients.direct.delete(res, `kvts-api-test-${s.ns}`).catch(() => undefined);
    await s.clients.direct.create(res, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind,
      metadata: { name: `kvts-api-test-${s.ns}` },
      webhooks: [
        hook(`${kind === 'MutatingWebhookConfiguration' ? 'mutate' : 'validate'}.vm.kubevirt.io`, path),
      ],
    });
  }
}

beforeAll(async () => {
  admin = loadRestConfig({
    kubeconfig: s.c.kubeconfig,
    inCluster: false,
    userAgent: 'kubevirt-ts/api-itest',
  });
  const apiPort = await freePort(NODE_IP);
  pki = await makeTestPki([
    { name: 'ca', cn: 'api-test-ca', ca: true },
    {
      name: 'serving',
      cn: 'virt-api',
      issuer: 'ca',
      usage: 'serverAuth',
      sans: `DNS:virt-api.${s.ns}.svc,IP:${NODE_IP},IP:127.0.0.1`,
    },
  ]);
  const handlerPki = consolePki;
  if (handlerPki === undefined) throw new Error('the suite made no handler certificates');
  stopApi = new AbortController();
  api = runApiRole(
    {
      config: loadRestConfig({ kubeconfig: s.c.kubeconfig, inCluster: false, userAgent: 'kubevirt-ts/api' }),
      port: apiPort,
      host: NODE_IP,
      tls: pemOf(pki, 'serving'),
      handlers: {
        port: handlerConsolePort,
        tls: {
          ca: handlerPki.ca.cert,
          cert: handlerPki.client.cert,
          key: handlerPki.client.key,
          serverName: 'virt-handler',
        },
      },
      ownServiceAccounts: [],
      healthPort: 0,
      healthHost: '127.0.0.1',
      log: apiLog.log,
    },
    stopApi.signal,
  );
  await waitFor(() => apiLog.lines.some((l) => l['msg'] === 'api listening'), 'the api listening', {
    timeoutMs: 30_000,
  });
  await registerAggregation(apiPort);
  const proxy = await startWebhookProxy({
    host: '127.0.0.1',
    port: 0,
    cert: pemOf(pki, 'serving').cert,
    key: pemOf(pki, 'serving').key,
    upstream: `https://${NODE_IP}:${apiPort}`,
    upstreamCa: pemOf(pki, 'ca').cert,
    index: buildRuleIndex(KUBEVIRT_REWRITE_RULES),
    metrics: rewriterMetrics(newRegistry({ defaultMetrics: false })),
    log: nopLogger,
    maxBodyBytes: 3 * 1024 * 1024,
  });
  webhookProxy = proxy;
  await registerWebhooks(proxy.port);
  // The aggregation layer sees the APIService Available once it reached the api.
  await waitFor(
    async () => (await kubeCall('GET', '/apis/subresources.kubevirt.io/v1')).status === 200,
    'subresources.kubevirt.io/v1 served through kube-apiserver',
    { timeoutMs: 60_000, intervalMs: 500 },
  );
}, 600_000);

afterAll(async () => {
  for (const [res, name] of [
    [API_SERVICES, APISERVICE],
    [VALIDATING, `kvts-api-test-${s.ns}`],
    [MUTATING, `kvts-api-test-${s.ns}`],
  ] as const) {
    await s.clients.direct.delete(res, name).catch(() => undefined);
  }
  await webhookProxy?.close();
  stopApi?.abort();
  await api;
}, 60_000);

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
    const url = new URL(subresource('virtualmachineinstances', 'a', 'console'), admin.server);
    url.protocol = 'wss:';
    const text = await waitFor(
      async () => {
        const ws = new WebSocket(url, ['plain.kubevirt.io'], {
          ca: admin.ca,
          cert: admin.cert,
          key: admin.key,
        });
        return new Promise<string | undefined>((resolve) => {
          let seen = '';
          const timer = setTimeout(() => {
            ws.terminate();
            resolve(undefined);
          }, 20_000);
          ws.on('message', (d: Buffer) => {
            seen += d.toString('utf8');
            if (seen.includes(MARKER)) {
              clearTimeout(timer);
              ws.close(1000);
              resolve(seen);
            }
          });
          ws.on('error', () => {
            clearTimeout(timer);
            resolve(undefined);
          });
          ws.on('unexpected-response', () => {
            clearTimeout(timer);
            resolve(undefined);
          });
        });
      },
      'the marker on the console through the api',
      { timeoutMs: 240_000, intervalMs: 2000 },
    );
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
    const accepted = await waitFor(
      async () => {
        last = await kubeCall('PUT', vmiPath, { body });
        return last.status !== 409 && last.status !== 422 && last;
      },
      () => `addvolume past the conflicts (last: ${last?.status ?? 0} ${last?.text ?? ''})`,
      { timeoutMs: 60_000, intervalMs: 1000 },
    );
    expect(accepted).toEqual({ status: 202, text: '' });
    const added = await spec();
    expect(added.volumes?.find((v) => v.name === 'hp-vmi')?.persistentVolumeClaim).toEqual({
      claimName: 'claim-2',
      hotpluggable: true,
    });
    expect(added.domain.devices.disks?.find((d) => d.name === 'hp-vmi')?.disk).toEqual({ bus: 'scsi' });
    const removed = await kubeCall('PUT', subresource('virtualmachineinstances', 'a', 'removevolume'), {
      body: JSON.stringify({ name: 'hp-vmi' }),
    });
    expect(removed).toEqual({ status: 202, text: '' });
    expect((await spec()).volumes?.some((v) => v.name === 'hp-vmi')).toBe(false);
  }, 60_000);
});
