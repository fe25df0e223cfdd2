/**
 * The operator's install as its users lean on it, on the local cluster: an object it made, deleted or edited by
 * hand, is put back; a role's /metrics answers no token 401, a token without RBAC 403 and one bound to the
 * metrics reader 200; an open `virtctl-ts console` outlives the deletion of each api Pod in turn (it reconnects
 * and the guest's output goes on); certificates rotated every minute by a short `certificateRotateStrategy` are
 * taken up by the roles with no request failing and no container restarting; the resource's conditions follow
 * its components' readiness; a new image is rolled out in KubeVirt's update order (handler, controller, api),
 * each only once the one before runs the new version ready.
 */
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { describe, expect, it } from '@jest/globals';
import { Agent, request } from 'undici';
import { CONFIG_MAPS, PODS } from '../../lib/kernel/kube/index.ts';
import { certificateBlocks } from '../../lib/kernel/x509/read.ts';
import type { GroupVersionResource, KubeObject } from '../../lib/kernel/kube/types.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { KUBEVIRTS, VIRTUAL_MACHINES, type KubeVirt } from '../../lib/kubevirt/index.ts';
import { installedKind } from '../../lib/operator/apply/kinds.ts';
import type { Component } from '../../lib/operator/config/install-config.ts';
import { observeComponents } from '../../lib/operator/controller/observe.ts';
import { COMPONENTS, rolledOver } from '../../lib/operator/status/components.ts';
import { PORTS } from '../../lib/operator/generate/layout.ts';
import {
  CA_BUNDLE_KEY,
  CONFIG_MAPS as INSTALLED,
  METRICS_READER_CLUSTER_ROLE,
  SECRETS,
} from '../../lib/operator/generate/names.ts';
import { MARKER } from '../../testenv/guests/guests.ts';
import { installVirt, localKubeVirt, tagVirtImage, VIRT_NAMESPACE } from '../local/virt-install.ts';
import { rolePods } from '../local/virt-pods.ts';
import { agentVm, exampleVm } from '../local/virt.ts';
import { scenario } from './stack.ts';
import { ESCAPE, virtctl } from './virtctl.ts';

const s = scenario('e2e-install');
const SERVICES = installedKind('v1', 'Service');
const SERVICE_ACCOUNTS = installedKind('v1', 'ServiceAccount');
const SECRETS_GVR = installedKind('v1', 'Secret');
const CLUSTER_ROLE_BINDINGS = installedKind('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding');
const until = <T>(what: string, f: () => Promise<T | false | undefined>, timeoutMs = 120_000): Promise<T> =>
  waitFor(f, what, { timeoutMs, intervalMs: 1000 });
const gone = (p: Promise<unknown>): Promise<boolean> =>
  p.then(
    () => false,
    () => true,
  );

type Data = KubeObject & { data?: Record<string, string> };

describe('what the operator made', () => {
  it('comes back when deleted, and is put back when edited', async () => {
    const get = (gvr: GroupVersionResource, name: string): Promise<KubeObject & Record<string, unknown>> =>
      s.clients.direct.get(gvr, name, { namespace: VIRT_NAMESPACE });
    const service = await get(SERVICES, 'virt-api');
    await s.clients.direct.delete(SERVICES, 'virt-api', { namespace: VIRT_NAMESPACE });
    const back = await until('the virt-api Service back', () =>
      get(SERVICES, 'virt-api').catch(() => undefined),
    );
    expect(back['spec']).toMatchObject({ ports: (service['spec'] as { ports: unknown }).ports });

    await s.clients.direct.patch(
      CONFIG_MAPS,
      INSTALLED.caBundle,
      { data: { [CA_BUNDLE_KEY]: 'edited by hand' } },
      {
        type: 'merge',
        namespace: VIRT_NAMESPACE,
      },
    );
    // Put back as the operator renders it: with the CA that signs now. The earlier CAs a rotation keeps in the
    // bundle for a while are read from the bundle itself, so an edit loses them, in KubeVirt too.
    await until('the CA bundle put back', async () => {
      const now = await s.clients.direct.get<Data>(CONFIG_MAPS, INSTALLED.caBundle, {
        namespace: VIRT_NAMESPACE,
      });
      const ca = await s.clients.direct.get<Data>(SECRETS_GVR, SECRETS.ca, { namespace: VIRT_NAMESPACE });
      const signing = new X509Certificate(Buffer.from(ca.data?.['tls.crt'] ?? '', 'base64')).fingerprint256;
      const held = certificateBlocks(now.data?.[CA_BUNDLE_KEY] ?? '').map((b) => new X509Certificate(b));
      return held.some((c) => c.fingerprint256 === signing);
    });
  }, 300_000);
});

/** GET /metrics of a controller Pod over TLS (its certificate is not checked: the answer is what counts). */
async function metricsStatus(token?: string): Promise<number> {
  const pod = (await rolePods(s.clients)).find((p) => (p.metadata.name ?? '').startsWith('virt-controller-'));
  const ip = pod?.status?.podIP;
  if (ip === undefined) throw new Error('no controller Pod address');
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  try {
    const res = await request(`https://${ip}:${String(PORTS.controllerHealth)}/metrics`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      dispatcher,
    });
    await res.body.dump();
    return res.statusCode;
  } finally {
    await dispatcher.close();
  }
}

describe('a role’s /metrics', () => {
  it('answers no token 401, a token without RBAC 403, and a token bound to the metrics reader 200', async () => {
    const sa = 'kvts-metrics-reader';
    await s.clients.direct.create(SERVICE_ACCOUNTS, { metadata: { name: sa, namespace: s.ns } });
    const { status } = await s.clients.direct.request<{ status: { token: string } }>({
      method: 'POST',
      path: `/api/v1/namespaces/${s.ns}/serviceaccounts/${sa}/token`,
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 600 },
      },
    });
    expect(await metricsStatus()).toBe(401);
    expect(await metricsStatus(status.token)).toBe(403);
    const binding = `kvts-metrics-${s.ns}`;
    await s.clients.direct.create(CLUSTER_ROLE_BINDINGS, {
      metadata: { name: binding },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: METRICS_READER_CLUSTER_ROLE,
      },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: s.ns }],
    } as KubeObject);
    try {
      // A denial is remembered for 10 s.
      await until(
        '/metrics answering 200 to the bound token',
        async () => (await metricsStatus(status.token)) === 200,
        60_000,
      );
    } finally {
      await s.clients.direct.delete(CLUSTER_ROLE_BINDINGS, binding);
    }
  }, 180_000);
});

describe('an open console', () => {
  it('outlives the deletion of each api Pod in turn, and the guest’s output goes on', async () => {
    await s.clients.kv.create(VIRTUAL_MACHINES, await agentVm(s.ns, 'steady'));
    await s.running('steady');
    const con = virtctl(s.c.kubeconfig, s.ns).console('steady');
    // When each drop and each connection showed on virtctl-ts's stderr.
    const drops: number[] = [];
    const connects: number[] = [];
    const seen = { drops: 0, connects: 0 };
    const count = (text: string, word: string): number => text.split(word).length - 1;
    const timing = setInterval(() => {
      const err = con.stderr();
      for (let n = count(err, 'reconnecting...'); seen.drops < n; seen.drops++) drops.push(Date.now());
      for (let n = count(err, 'Successfully connected'); seen.connects < n; seen.connects++)
        connects.push(Date.now());
    }, 20);
    try {
      await con.connected(60_000);
      await con.until(MARKER, 120_000);
      const apiPods = async (): Promise<Pod[]> =>
        (await rolePods(s.clients)).filter((p) => (p.metadata.name ?? '').startsWith('virt-api-'));
      // Each api Pod there is now, one at a time (so the console's is among them), as a rollout or an eviction
      // takes them: the other one serves meanwhile.
      const originals = (await apiPods()).map((p) => p.metadata.name ?? '');
      for (const [i, name] of originals.entries()) {
        await until('both api Pods ready', async () => {
          const ready = (await apiPods()).filter(
            (p) =>
              p.metadata.deletionTimestamp === undefined &&
              (p.status?.containerStatuses ?? []).every((c) => c.ready),
          );
          return ready.length === 2;
        });
        const deleted = Date.now();
        await s.clients.direct.delete(PODS, name, { namespace: VIRT_NAMESPACE });
        // Typed until the guest answers: the session reconnects after a drop and the guest's shell keeps going.
        const from = con.output().length;
        const answer = `A${String(6 * 7 + i)}Z`;
        await until(
          `the guest answering through the console after api Pod ${String(i + 1)} went`,
          () => {
            con.type(`echo A$((${String(6 * 7 + i)}))Z\n`);
            return Promise.resolve(con.output().slice(from).includes(answer));
          },
          90_000,
        );
        process.stderr.write(
          `console answering again ${String(Date.now() - deleted)} ms after api Pod ${String(i + 1)}'s deletion\n`,
        );
      }
    } finally {
      clearInterval(timing);
      con.type(ESCAPE);
      await con.exited;
    }
    // The session's own api Pod was among those deleted: it dropped, and each drop was connected again within
    // 2 s (the other api Pod serving meanwhile).
    expect(drops.length).toBeGreaterThan(0);
    const back = drops.map((d) => (connects.find((c) => c >= d) ?? Infinity) - d);
    process.stderr.write(`console connected again ${JSON.stringify(back)} ms after each drop\n`);
    for (const ms of back) expect(ms).toBeLessThanOrEqual(2_000);
  }, 600_000);
});

/** The SHA-256 fingerprint of the certificate an api Pod serves now. */
function servedCertificate(ip: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: ip, port: PORTS.api, rejectUnauthorized: false, servername: `virt-api.${VIRT_NAMESPACE}.svc` },
      () => {
        resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? '');
        socket.destroy();
      },
    );
    socket.once('error', reject);
  });
}

const restarts = async (): Promise<Record<string, number>> =>
  Object.fromEntries(
    (await rolePods(s.clients)).flatMap((p: Pod) =>
      (p.status?.containerStatuses ?? []).map((c) => [
        `${p.metadata.name ?? ''}/${c.name}`,
        c.restartCount ?? 0,
      ]),
    ),
  );

/** The SHA-256 fingerprint of the serving certificate the api's Secret holds now. */
async function apiSecretFingerprint(): Promise<string> {
  const secret = await s.clients.direct.get<Data>(SECRETS_GVR, SECRETS.api, { namespace: VIRT_NAMESPACE });
  const pem = Buffer.from(secret.data?.['tls.crt'] ?? '', 'base64').toString('utf8');
  return new X509Certificate(pem).fingerprint256;
}

/** `virtctl-ts pause` and `unpause` of the rotation VMI (kube-apiserver → api → handler): what failed. */
async function pauseAndUnpause(cli: ReturnType<typeof virtctl>): Promise<string[]> {
  const failed: string[] = [];
  for (const verb of ['pause', 'unpause']) {
    const r = await cli.run(verb, 'vmi', 'rotation');
    if (r.code !== 0) failed.push(`${verb}: ${r.stderr}`);
  }
  return failed;
}

describe('short-lived certificates', () => {
  it('are rotated and taken up with no request failing and no container restarting', async () => {
    const name = localKubeVirt().metadata.name ?? '';
    const patch = (spec: Record<string, unknown>): Promise<KubeVirt> =>
      s.clients.kv.patch<KubeVirt>(KUBEVIRTS, name, { spec }, { namespace: VIRT_NAMESPACE, type: 'merge' });
    await s.clients.kv.create(VIRTUAL_MACHINES, await exampleVm(s.ns, 'rotation'));
    await s.running('rotation');
    const cli = virtctl(s.c.kubeconfig, s.ns);
    const before = await restarts();
    const api = (await rolePods(s.clients)).find((p) => (p.metadata.name ?? '').startsWith('virt-api-'));
    const ip = api?.status?.podIP ?? '';
    const first = await servedCertificate(ip);
    await patch({
      certificateRotateStrategy: {
        selfSigned: {
          ca: { duration: '30m', renewBefore: '15m' },
          server: { duration: '3m', renewBefore: '2m' },
        },
      },
    });
    const served = new Set([first]);
    const failures: string[] = [];
    /** When each certificate was first seen in the api's Secret, and first served by the api Pod. */
    const inSecret = new Map<string, number>();
    const onWire = new Map<string, number>();
    try {
      // Four minutes of work through every certificate: webhooks (kube-apiserver → rewriter → api), the
      // subresource API (kube-apiserver → api) and the api's calls to the handler (pause, unpause).
      for (const end = Date.now() + 240_000; Date.now() < end;) {
        failures.push(...(await pauseAndUnpause(cli)));
        const vm = await exampleVm(s.ns, 'webhooked');
        vm.spec.runStrategy = 'Halted';
        await s.clients.kv.create(VIRTUAL_MACHINES, vm).then(
          () => s.clients.kv.delete(VIRTUAL_MACHINES, 'webhooked', { namespace: s.ns }),
          (err: unknown) => void failures.push(`create a VM: ${String(err)}`),
        );
        await until(
          'the VM gone',
          () => gone(s.clients.kv.get(VIRTUAL_MACHINES, 'webhooked', { namespace: s.ns })),
          30_000,
        );
        const now = Date.now();
        const wire = await servedCertificate(ip);
        served.add(wire);
        if (!onWire.has(wire)) onWire.set(wire, now);
        const secret = await apiSecretFingerprint();
        if (!inSecret.has(secret)) inSecret.set(secret, now);
      }
    } finally {
      await patch({ certificateRotateStrategy: null });
    }
    const delays = [...inSecret].flatMap(([fp, t]) => {
      const w = onWire.get(fp);
      return w === undefined ? [] : [Math.max(0, w - t)];
    });
    process.stderr.write(
      `api serving certificates taken up after their Secret changed: ${JSON.stringify(delays)} ms\n`,
    );
    expect(failures).toEqual([]);
    expect(served.size).toBeGreaterThan(1);
    // KubeVirt #15210: a rotated certificate is served within a minute of its Secret changing.
    expect(delays.length).toBeGreaterThan(0);
    for (const ms of delays) expect(ms).toBeLessThanOrEqual(60_000);
    expect(await restarts()).toEqual(before);
  }, 600_000);
});

describe('the KubeVirt resource’s conditions', () => {
  it('follow the components’ readiness: every controller Pod gone is Degraded until they are back', async () => {
    const name = localKubeVirt().metadata.name ?? '';
    const conditions = async (): Promise<Record<string, string>> => {
      const kv = await s.clients.kv.get<KubeVirt>(KUBEVIRTS, name, { namespace: VIRT_NAMESPACE });
      return Object.fromEntries(
        (kv.status?.conditions ?? []).map((c) => [c.type, `${c.status} ${c.reason ?? ''}`]),
      );
    };
    const ready = { Available: 'True AllComponentsReady', Degraded: 'False AllComponentsReady' };
    expect(await conditions()).toMatchObject(ready);
    const controllers = (await rolePods(s.clients)).filter((p) =>
      (p.metadata.name ?? '').startsWith('virt-controller-'),
    );
    expect(controllers.length).toBeGreaterThan(0);
    for (const p of controllers)
      await s.clients.direct.delete(PODS, p.metadata.name ?? '', { namespace: VIRT_NAMESPACE });
    await waitFor(
      async () => {
        const c = await conditions();
        return c['Available'] === 'False ComponentsNotReady' && c['Degraded'] === 'True ComponentsNotReady';
      },
      'KubeVirt Degraded while no controller Pod is ready',
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    await until('KubeVirt Available again', async () => {
      const c = await conditions();
      return c['Available'] === ready.Available && c['Degraded'] === ready.Degraded;
    });
  }, 300_000);
});

describe('a new image', () => {
  it('is rolled out handler first, then controller, then api, each once the one before is rolled over', async () => {
    const version = `rollout-${s.ns.slice(-8)}`;
    const image = await tagVirtImage(version, s.c.dir);
    const started: Partial<Record<Component, number>> = {};
    const done: Partial<Record<Component, number>> = {};
    const live = (kind: 'Deployment' | 'DaemonSet', name: string): Promise<KubeObject | undefined> =>
      s.clients.direct
        .get(installedKind('apps/v1', kind), name, { namespace: VIRT_NAMESPACE })
        .catch(() => undefined);
    // One moment per look. The later steps are read first: a step seen started means the one before it,
    // read after, is seen rolled over in the same look.
    const look = async (): Promise<void> => {
      const workloads = new Map<string, KubeObject | undefined>();
      for (const [kind, name] of [
        ['Deployment', 'virt-api'],
        ['Deployment', 'virt-controller'],
        ['DaemonSet', 'virt-handler'],
      ] as const)
        workloads.set(`${kind}/${name}`, await live(kind, name));
      const observed = observeComponents((kind, name) => workloads.get(`${kind}/${name}`));
      const now = Date.now();
      for (const c of COMPONENTS) {
        if (observed[c].version === version) started[c] ??= now;
        if (rolledOver(c, observed[c], version)) done[c] ??= now;
      }
    };
    const stop = new AbortController();
    const watcher = (async (): Promise<void> => {
      while (!stop.signal.aborted) {
        await look();
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    try {
      await installVirt(s.clients, { dir: s.c.dir, image, timeoutMs: 600_000 });
      await look();
    } finally {
      stop.abort();
      await watcher;
    }
    process.stderr.write(
      `rollout of ${version}: started ${JSON.stringify(started)}, rolled over ${JSON.stringify(done)}\n`,
    );
    const [handler, controller, api] = [
      started['virt-handler'],
      started['virt-controller'],
      started['virt-api'],
    ];
    expect([handler, controller, api].every((t) => t !== undefined)).toBe(true);
    expect(controller).toBeGreaterThanOrEqual(done['virt-handler'] ?? Infinity);
    expect(api).toBeGreaterThanOrEqual(done['virt-controller'] ?? Infinity);
    // Back to the image the scenarios run.
    await installVirt(s.clients, { dir: s.c.dir, timeoutMs: 600_000 });
  }, 1_500_000);
});
