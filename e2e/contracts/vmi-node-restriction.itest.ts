/**
 * KubeVirt's NodeRestriction through the real kube-apiserver: the api's VMI update webhook, registered by URL at
 * the rewriter's webhook proxy, with the NodeRestriction gate read from the KubeVirt CR of the api's namespace.
 * virt-handler's service account holds a token bound to a Node (TokenRequest with a Node boundObjectRef), so
 * kube-apiserver puts the node's name in the user's `authentication.kubernetes.io/node-name` extra: an update
 * of a VMI on another node is denied with KubeVirt's message, one of a VMI on its own node is allowed. The
 * webhook configuration and the Nodes are removed at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KUBEVIRTS, VIRTUAL_MACHINE_INSTANCES, type VirtualMachineInstance } from '../../lib/kubevirt/index.ts';
import { INTERNAL_VIRTUAL_MACHINE_INSTANCES } from '../../lib/kubevirt/internal-gvr.ts';
import { richVmiSpec } from '../../lib/kubevirt/testing/fixtures.ts';
import { APISERVER_WEBHOOK_CLIENT_CN, WEBHOOKS } from '../../lib/kubevirt/webhooks.ts';
import { runApiRole } from '../../lib/apiserver/role.ts';
import { HttpKubeClient, NODES, type KubeClient, type KubeObject } from '../../lib/kernel/kube/index.ts';
import { memoryLogger, nopLogger } from '../../lib/kernel/log/log.ts';
import { newRegistry } from '../../lib/kernel/metrics/registry.ts';
import { eventually, waitFor } from '../../lib/kernel/testing/wait.ts';
import { makeTestPki, pemOf, type TestPem } from '../../testenv/pki.ts';
import { rewritingClient } from '../../lib/rename/client/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../../lib/rename/index.ts';
import { rewriterMetrics } from '../../lib/rewriter/proxy/metrics.ts';
import { startWebhookProxy } from '../../lib/rewriter/proxy/webhook.ts';
import { WEBHOOK_CLIENT_CN } from '../../lib/apiserver/auth/index.ts';
import { gvr } from '../local/virt-registration.ts';
import { testCluster, type TestCluster } from '../../testenv/cluster.ts';

const VALIDATING = gvr(
  'admissionregistration.k8s.io/v1',
  'validatingwebhookconfigurations',
  'ValidatingWebhookConfiguration',
  false,
);
const SERVICE_ACCOUNTS = gvr('v1', 'serviceaccounts', 'ServiceAccount', true);
const ROLES = gvr('rbac.authorization.k8s.io/v1', 'roles', 'Role', true);
const ROLE_BINDINGS = gvr('rbac.authorization.k8s.io/v1', 'rolebindings', 'RoleBinding', true);
const SELF_SUBJECT_REVIEWS = gvr(
  'authentication.k8s.io/v1',
  'selfsubjectreviews',
  'SelfSubjectReview',
  false,
);
const HANDLER_SA = 'kubevirt-internal-virtualization-handler';
const ONLY_ITS_OWN = 'Node restriction, virt-handler is only allowed to modify VMIs it owns';

let cluster: TestCluster;
let pki: Record<string, TestPem>;
let stopApi: AbortController;
let api: Promise<void> | undefined;
let proxy: { close(): Promise<void>; port: number } | undefined;
let kv: KubeClient;
let handler: KubeClient;
let handlerDirect: HttpKubeClient | undefined;
const nodes = { own: '', other: '' };

async function startApi(): Promise<number> {
  const logged = memoryLogger('virt-api', 2);
  stopApi = new AbortController();
  api = runApiRole(
    {
      config: cluster.config,
      port: 0,
      host: '127.0.0.1',
      tls: pemOf(pki, 'serving'),
      webhookClients: { caPem: pemOf(pki, 'ca').cert, allowedNames: [WEBHOOK_CLIENT_CN] },
      handlers: {
        port: 4101,
        tls: {
          ca: Buffer.from(pemOf(pki, 'ca').cert),
          cert: Buffer.from(pemOf(pki, 'serving').cert),
          key: Buffer.from(pemOf(pki, 'serving').key),
        },
      },
      ownServiceAccounts: [],
      handlerServiceAccounts: [`system:serviceaccount:${cluster.ns}:${HANDLER_SA}`],
      namespace: cluster.ns,
      healthPort: 0,
      healthHost: '127.0.0.1',
      log: logged.log,
    },
    stopApi.signal,
  );
  return waitFor(
    () => logged.lines.find((l) => l['msg'] === 'api listening')?.['port'] as number | undefined,
    'the api listening',
    { timeoutMs: 30_000 },
  );
}

/** The VMI update webhook at the webhook proxy, for the test's namespace only. */
async function registerWebhook(): Promise<void> {
  const name = `kvts-node-restriction-${cluster.ns}`;
  cluster.onClose(() => cluster.direct.delete(VALIDATING, name).catch(() => undefined));
  const r = INTERNAL_VIRTUAL_MACHINE_INSTANCES;
  await cluster.direct.create(VALIDATING, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        name: 'virtualmachineinstances-update-validator.kubevirt.io',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        timeoutSeconds: 10,
        clientConfig: {
          url: `https://127.0.0.1:${String(proxy?.port)}${WEBHOOKS.vmiValidateUpdate.path}`,
          caBundle: Buffer.from(pemOf(pki, 'ca').cert).toString('base64'),
        },
        rules: [
          {
            apiGroups: [r.group],
            apiVersions: [r.version],
            operations: ['UPDATE'],
            resources: [r.resource],
          },
        ],
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': cluster.ns } },
      },
    ],
  } as KubeObject);
}

/** Two Nodes (removed at the end), virt-handler's service account allowed to patch VMIs, a token bound to one Node. */
async function handlerBoundTo(): Promise<string> {
  const uids: string[] = [];
  for (const name of [nodes.own, nodes.other]) {
    cluster.onClose(() => cluster.direct.delete(NODES, name).catch(() => undefined));
    const node = await cluster.direct.create<KubeObject>(NODES, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name },
    });
    uids.push(node.metadata.uid ?? '');
  }
  const ns = cluster.ns;
  await cluster.direct.create(SERVICE_ACCOUNTS, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: HANDLER_SA, namespace: ns },
  });
  const r = INTERNAL_VIRTUAL_MACHINE_INSTANCES;
  await cluster.direct.create(ROLES, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: HANDLER_SA, namespace: ns },
    rules: [{ apiGroups: [r.group], resources: [r.resource], verbs: ['get', 'list', 'patch', 'update'] }],
  } as KubeObject);
  await cluster.direct.create(ROLE_BINDINGS, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: HANDLER_SA, namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: HANDLER_SA },
    subjects: [{ kind: 'ServiceAccount', name: HANDLER_SA, namespace: ns }],
  } as KubeObject);
  const request = await cluster.direct.create<KubeObject & { status?: { token?: string } }>(
    SERVICE_ACCOUNTS,
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { name: HANDLER_SA, namespace: ns },
      spec: {
        expirationSeconds: 600,
        boundObjectRef: { apiVersion: 'v1', kind: 'Node', name: nodes.own, uid: uids[0] },
      },
    } as KubeObject,
    { namespace: ns, subresource: 'token' },
  );
  return request.status?.token ?? '';
}

const vmiOn = (name: string, node: string): VirtualMachineInstance => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { name, namespace: cluster.ns },
  spec: richVmiSpec(),
  status: { phase: 'Running', nodeName: node },
});

/** The handler's patch of a VMI's status.reason: undefined when admitted, else kube-apiserver's refusal. */
const patchAsHandler = (
  name: string,
  reason: string,
): Promise<{ code?: number; message?: string } | undefined> =>
  handler
    .patch(VIRTUAL_MACHINE_INSTANCES, name, { status: { reason } }, { namespace: cluster.ns, type: 'merge' })
    .then(
      () => undefined,
      (e: unknown) =>
        (e as { status?: { code?: number; message?: string } }).status ?? { message: String(e) },
    );

beforeAll(async () => {
  cluster = await testCluster('node-restriction', { userAgent: 'kubevirt-ts/node-restriction-itest' });
  nodes.own = `${cluster.ns}-own`;
  nodes.other = `${cluster.ns}-other`;
  pki = await makeTestPki([
    { name: 'ca', cn: 'node-restriction-ca', ca: true },
    { name: 'serving', cn: 'virt-api', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
    { name: 'webhook-client', cn: WEBHOOK_CLIENT_CN, issuer: 'ca', usage: 'clientAuth' },
  ]);
  const apiPort = await startApi();
  proxy = await startWebhookProxy({
    host: '127.0.0.1',
    port: 0,
    cert: pemOf(pki, 'serving').cert,
    key: pemOf(pki, 'serving').key,
    upstream: `https://127.0.0.1:${String(apiPort)}`,
    upstreamCa: pemOf(pki, 'ca').cert,
    upstreamClient: pemOf(pki, 'webhook-client'),
    // kube-apiserver shows its webhook client certificate of the cluster CA (the CA of its serving certificate).
    callers: { ca: cluster.config.ca ?? '', allowedNames: [APISERVER_WEBHOOK_CLIENT_CN] },
    index: buildRuleIndex(KUBEVIRT_REWRITE_RULES),
    metrics: rewriterMetrics(newRegistry({ defaultMetrics: false })),
    log: nopLogger,
    maxBodyBytes: 3 * 1024 * 1024,
    keepAliveTimeout: 10,
  });
  kv = rewritingClient(cluster.direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
  await kv.create(KUBEVIRTS, {
    apiVersion: 'kubevirt.io/v1',
    kind: 'KubeVirt',
    metadata: { name: 'config', namespace: cluster.ns },
    spec: { configuration: { developerConfiguration: { featureGates: ['NodeRestriction'] } } },
  } as KubeObject);
  await kv.create(VIRTUAL_MACHINE_INSTANCES, vmiOn('on-own-node', nodes.own));
  await kv.create(VIRTUAL_MACHINE_INSTANCES, vmiOn('on-other-node', nodes.other));
  const token = await handlerBoundTo();
  const { server, ca, qps, burst } = cluster.config;
  handlerDirect = new HttpKubeClient(
    { server, ...(ca !== undefined && { ca }), token, qps, burst, userAgent: 'kubevirt-ts/handler-itest' },
    { keepAliveTimeout: 10 },
  );
  handler = rewritingClient(handlerDirect, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
  await registerWebhook();
}, 120_000);

afterAll(async () => {
  await handlerDirect?.destroy();
  await proxy?.close();
  stopApi.abort();
  await api;
  await cluster.close();
}, 60_000);

describe('NodeRestriction against kube-apiserver', () => {
  it("the handler's node-bound token names its node to admission", async () => {
    const review = await handler.create<KubeObject & { status?: { userInfo?: unknown } }>(
      SELF_SUBJECT_REVIEWS,
      {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'SelfSubjectReview',
        metadata: {},
      },
    );
    expect(review.status?.userInfo).toMatchObject({
      username: `system:serviceaccount:${cluster.ns}:${HANDLER_SA}`,
      extra: { 'authentication.kubernetes.io/node-name': [nodes.own] },
    });
  });

  it("denies the handler an update of another node's VMI, with KubeVirt's message", async () => {
    // kube-apiserver and the api's KubeVirt CR cache pick the webhook and the gate up within a moment.
    await eventually(
      async () => {
        const refused = await patchAsHandler('on-other-node', 'while waiting');
        expect(refused?.code).toBe(422);
        expect(refused?.message).toContain(ONLY_ITS_OWN);
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(await patchAsHandler('on-other-node', 'denied')).toMatchObject({ code: 422 });
    const stored = await kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, 'on-other-node', {
      namespace: cluster.ns,
    });
    expect(stored.status?.reason).not.toBe('denied');
  }, 60_000);

  it("allows the handler an update of its own node's VMI", async () => {
    expect(await patchAsHandler('on-own-node', 'patched by the handler')).toBeUndefined();
    const stored = await kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, 'on-own-node', {
      namespace: cluster.ns,
    });
    expect(stored.status?.reason).toBe('patched by the handler');
  }, 30_000);
});
