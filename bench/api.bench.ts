/**
 * `npm run bench -- api`: admission webhook latency of the api role under 200 concurrent reviews (a valid VM to
 * the mutating and the validating webhook, alternately, 5 rounds), measured over TLS on 127.0.0.1 against the
 * role running in this process with the bench's control plane; beside it, in the same run, a bare https server
 * that answers every review allowed without reading it (what TLS, HTTP and JSON alone cost on this machine).
 * The console path through kube-apiserver and the controller bench with the finalizer at admission need the
 * local cluster and are not measured here yet.
 */
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { WEBHOOKS } from '../lib/kubevirt/webhooks.ts';
import { WEBHOOK_CLIENT_CN } from '../lib/apiserver/auth/index.ts';
import { runApiRole } from '../lib/apiserver/role.ts';
import { vm } from '../lib/kubevirt/testing/objects.ts';
import { loadRestConfig } from '../lib/kernel/kube/index.ts';
import { memoryLogger } from '../lib/kernel/log/log.ts';
import { waitFor } from '../lib/kernel/testing/wait.ts';
import { makeTestPki, pemOf } from '../testenv/pki.ts';
import { percentile } from './stats.ts';
import type { BenchContext, BenchRow } from './table.ts';

const CONCURRENT = 200;
const ROUNDS = 5;

function reviewBody(i: number): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `bench-${i}`,
      operation: 'CREATE',
      userInfo: { username: 'bench' },
      object: { ...vm(), metadata: { name: `vm-${i}`, namespace: 'bench' } },
      oldObject: null,
    },
  });
}

async function measure(
  port: number,
  tls: { ca: string; cert: string; key: string },
): Promise<{ latencies: number[]; seconds: number }> {
  const agent = new Agent({ connect: tls, connections: CONCURRENT });
  const latencies: number[] = [];
  const start = performance.now();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(
        Array.from({ length: CONCURRENT }, async (_, i) => {
          const path = i % 2 === 0 ? WEBHOOKS.vmMutate.path : WEBHOOKS.vmValidate.path;
          const t0 = performance.now();
          const res = await request(`https://127.0.0.1:${port}${path}`, {
            method: 'POST',
            body: reviewBody(round * CONCURRENT + i),
            headers: { 'content-type': 'application/json' },
            dispatcher: agent,
          });
          const answer = (await res.body.json()) as { response?: { allowed?: boolean } };
          if (res.statusCode !== 200 || answer.response?.allowed !== true)
            throw new Error(`review answered ${res.statusCode}: ${JSON.stringify(answer).slice(0, 300)}`);
          latencies.push(performance.now() - t0);
        }),
      );
    }
  } finally {
    await agent.close();
  }
  return { latencies, seconds: (performance.now() - start) / 1000 };
}

export default async function apiBench(ctx: BenchContext): Promise<BenchRow[]> {
  const pki = await makeTestPki([
    { name: 'ca', cn: 'bench-ca', ca: true },
    { name: 'serving', cn: 'virt-api', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
    { name: 'webhook-client', cn: WEBHOOK_CLIENT_CN, issuer: 'ca', usage: 'clientAuth' },
  ]);
  const ca = pemOf(pki, 'ca').cert;
  const { log, lines } = memoryLogger('virt-api', 1);
  const stop = new AbortController();
  const running = runApiRole(
    {
      config: loadRestConfig({
        kubeconfig: ctx.kubeconfigPath,
        inCluster: false,
        userAgent: 'kubevirt-ts/api-bench',
      }),
      port: 0,
      host: '127.0.0.1',
      tls: pemOf(pki, 'serving'),
      webhookClients: { caPem: ca, allowedNames: [WEBHOOK_CLIENT_CN] },
      handlers: { port: 4101, tls: { ca: Buffer.from(ca), cert: Buffer.from(ca), key: Buffer.from('') } },
      ownServiceAccounts: [],
      healthPort: 0,
      healthHost: '127.0.0.1',
      log,
    },
    stop.signal,
  );
  const asks = { requestCert: true, rejectUnauthorized: false, ca };
  const bare = createServer({ ...pemOf(pki, 'serving'), ...asks }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"x","allowed":true}}',
      );
    });
  });
  try {
    const port = await waitFor(
      () => lines.find((l) => l['msg'] === 'api listening')?.['port'] as number | undefined,
      'the api listening',
      { timeoutMs: 30_000 },
    );
    await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
    const barePort = (bare.address() as AddressInfo).port;
    ctx.log(`api webhooks: ${ROUNDS} rounds of ${CONCURRENT} concurrent reviews`);
    // The client shows the webhook client certificate to both (asked for it alike), so both pay the same handshake.
    const tls = { ca, ...pemOf(pki, 'webhook-client') };
    const baseline = await measure(barePort, tls);
    const ours = await measure(port, tls);
    const n = ours.latencies.length;
    return [
      {
        name: 'webhook latency p50, 200 concurrent',
        value: percentile(ours.latencies, 50),
        unit: 'ms',
        note: `${n} reviews (mutate and validate a VM)`,
      },
      { name: 'webhook latency p99, 200 concurrent', value: percentile(ours.latencies, 99), unit: 'ms' },
      { name: 'webhook reviews per second', value: n / ours.seconds, unit: 'reviews/s' },
      {
        name: 'baseline: bare https answer p50',
        value: percentile(baseline.latencies, 50),
        unit: 'ms',
        note: 'same TLS, HTTP and client, no admission',
      },
      { name: 'baseline: bare https answer p99', value: percentile(baseline.latencies, 99), unit: 'ms' },
      {
        name: 'baseline: answers per second',
        value: baseline.latencies.length / baseline.seconds,
        unit: 'reviews/s',
      },
    ];
  } finally {
    bare.close();
    stop.abort();
    await running;
  }
}
