/**
 * The webhook proxy with a real kube-apiserver calling it: a MutatingWebhookConfiguration written through the
 * kube-api proxy in kubevirt.io terms (stored renamed) sends VMI creations to the webhook proxy, which hands a
 * test webhook the AdmissionReview with original names; the webhook's patch, written with kubevirt.io label
 * names, comes back renamed and the API server stores the internal label.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { VIRTUAL_MACHINE_INSTANCES } from '../../kubevirt/gvr.ts';
import { INTERNAL_VIRTUAL_MACHINE_INSTANCES } from '../../kubevirt/internal-gvr.ts';
import { richVmiSpec } from '../../kubevirt/testing/fixtures.ts';
import { WEBHOOKS } from '../../kubevirt/webhooks.ts';
import type { GroupVersionResource, KubeObject } from '../../kernel/kube/index.ts';
import { makeTlsFixture, type TlsFixture } from '../../../testenv/pki.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import { rewriterMetrics } from './metrics.ts';
import type { ProxyServer } from './serve.ts';
import { eventually } from '../../kernel/testing/wait.ts';
import { startCluster, type Cluster } from './testing/cluster.ts';
import { IG, INT } from '../../rename/testing/objects.ts';
import { startWebhookProxy } from './webhook.ts';

const MUTATING_WEBHOOKS: GroupVersionResource = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'mutatingwebhookconfigurations',
  kind: 'MutatingWebhookConfiguration',
  namespaced: false,
};

interface Review {
  request: {
    uid: string;
    kind: unknown;
    resource: unknown;
    object: KubeObject;
  };
}

let c: Cluster;
let tls: TlsFixture;
let webhook: Server;
let proxy: ProxyServer;
const reviews: Review[] = [];
let configName = '';

function answer(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
    reviews.push(review);
    const patch = [{ op: 'add', path: '/metadata/labels/kubevirt.io~1mutated', value: 'yes' }];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: {
          uid: review.request.uid,
          allowed: true,
          patchType: 'JSONPatch',
          patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
        },
      }),
    );
  });
}

beforeAll(async () => {
  c = await startCluster('rewriter-webhook');
  tls = await makeTlsFixture();
  webhook = createServer({ cert: tls.cert, key: tls.key }, answer);
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  proxy = await startWebhookProxy({
    host: '127.0.0.1',
    port: 0,
    cert: tls.cert,
    key: tls.key,
    upstream: `https://127.0.0.1:${(webhook.address() as AddressInfo).port}`,
    upstreamCa: tls.cert,
    index: c.index,
    metrics: rewriterMetrics(new Registry()),
    log: nopLogger,
    maxBodyBytes: 1 << 20,
    keepAliveTimeout: 10,
  });
  configName = `kv-rewriter-itest-${c.ns}`;
});

afterAll(async () => {
  await c.direct.delete(MUTATING_WEBHOOKS, configName).catch(() => undefined);
  await proxy.close(100);
  webhook.closeAllConnections();
  await new Promise((resolve) => webhook.close(resolve));
  tls.remove();
  await c.close();
});

describe('webhook proxy against kube-apiserver', () => {
  it('admits VMI creations with original names and applies the renamed patch', async () => {
    const config = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: configName, labels: { 'kubevirt.io': 'virt-api' } },
      webhooks: [
        {
          name: 'virtualmachineinstances-mutator.kubevirt.io',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          timeoutSeconds: 10,
          clientConfig: {
            url: `https://127.0.0.1:${proxy.port}${WEBHOOKS.vmiMutate.path}`,
            caBundle: Buffer.from(tls.cert).toString('base64'),
          },
          rules: [
            {
              apiGroups: ['kubevirt.io'],
              apiVersions: ['v1'],
              operations: ['CREATE'],
              resources: ['virtualmachineinstances'],
            },
          ],
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': c.ns } },
        },
      ],
    };
    await c.viaProxy.create(MUTATING_WEBHOOKS, config);
    const stored = await c.direct.get<typeof config>(MUTATING_WEBHOOKS, configName);
    expect(stored.metadata.labels).toEqual({ [INT]: 'virt-api' });
    expect(stored.webhooks[0]?.rules[0]).toMatchObject({
      apiGroups: [IG],
      resources: ['internalvirtualizationvirtualmachineinstances'],
    });

    // The API server picks the configuration up within a moment: create until a VMI comes back mutated.
    let n = 0;
    let created: KubeObject | undefined;
    await eventually(async () => {
      created = await c.viaProxy.create(VIRTUAL_MACHINE_INSTANCES, {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachineInstance',
        metadata: { name: `wh-${n++}`, namespace: c.ns, labels: { 'kubevirt.io/vm': 'wh' } },
        spec: richVmiSpec(),
      } as KubeObject);
      expect(created.metadata.labels).toEqual({ 'kubevirt.io/vm': 'wh', 'kubevirt.io/mutated': 'yes' });
    });

    const review = reviews[reviews.length - 1];
    expect(review?.request.kind).toEqual({
      group: 'kubevirt.io',
      version: 'v1',
      kind: 'VirtualMachineInstance',
    });
    expect(review?.request.resource).toEqual({
      group: 'kubevirt.io',
      version: 'v1',
      resource: 'virtualmachineinstances',
    });
    expect(review?.request.object).toMatchObject({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { labels: { 'kubevirt.io/vm': 'wh' } },
    });

    const direct = await c.direct.get(INTERNAL_VIRTUAL_MACHINE_INSTANCES, created?.metadata.name ?? '', {
      namespace: c.ns,
    });
    expect(direct.metadata.labels).toEqual({ [`${INT}/vm`]: 'wh', [`${INT}/mutated`]: 'yes' });
  });
});
