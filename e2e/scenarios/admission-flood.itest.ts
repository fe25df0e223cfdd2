/**
 * A flood of admission reviews does not starve the api's own calls: on the local cluster with the roles installed
 * as `./dev run` installs them, 2,000 VM validation reviews arrive at once at the api Pods' webhook port (as their
 * rewriter sidecar sends them: with its client certificate from the install's Secret), and once they are in a VM
 * starts; again, and its console opens; the VM reaches Running and the console connects within the bounds the
 * lifecycle scenario gives them (300 s, 60 s). The flood's answers (verdicts, 429s, connections the busy
 * machine could not take) are printed, not judged.
 */
import { describe, expect, it } from '@jest/globals';
import { Agent, request as httpsRequest } from 'node:https';
import { CONFIG_MAPS, PODS } from '../../lib/kernel/kube/index.ts';
import type { KubeObject } from '../../lib/kernel/kube/types.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { VIRTUAL_MACHINES, type VirtualMachine } from '../../lib/kubevirt/index.ts';
import { WEBHOOKS } from '../../lib/kubevirt/webhooks.ts';
import { PORTS } from '../../lib/operator/generate/layout.ts';
import {
  CA_BUNDLE_KEY,
  CONFIG_MAPS as INSTALLED_CONFIG_MAPS,
  SECRETS,
  TLS_CERT_KEY,
  TLS_KEY_KEY,
} from '../../lib/operator/generate/names.ts';
import { MARKER } from '../../testenv/guests/guests.ts';
import { VIRT_NAMESPACE } from '../local/virt-install.ts';
import { exampleVm } from '../local/virt.ts';
import { scenario } from './stack.ts';
import { ESCAPE, virtctl } from './virtctl.ts';

const s = scenario('e2e-flood');
const VM = 'flood';
const REVIEWS = 2000;
const SECRETS_GVR = { ...CONFIG_MAPS, resource: 'secrets', kind: 'Secret' };

/** A VM create as kube-apiserver sends it, restored by the rewriter (kubevirt.io names). */
function review(vm: VirtualMachine, i: number): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `flood-${i}`,
      operation: 'CREATE',
      userInfo: { username: 'admin' },
      kind: { group: 'kubevirt.io', version: 'v1', kind: 'VirtualMachine' },
      resource: { group: 'kubevirt.io', version: 'v1', resource: 'virtualmachines' },
      namespace: vm.metadata.namespace,
      name: `${vm.metadata.name ?? ''}-${i}`,
      object: { ...vm, metadata: { ...vm.metadata, name: `${vm.metadata.name ?? ''}-${i}` } },
    },
  });
}

/** What the api Pods' rewriter sidecar dials them with: the install's CA and its client certificate. */
async function sidecarCredentials(): Promise<{ ca: string; cert: string; key: string; pods: string[] }> {
  type Data = KubeObject & { data?: Record<string, string> };
  const text = (d: Data, k: string): string => Buffer.from(d.data?.[k] ?? '', 'base64').toString('utf8');
  const bundle = await s.clients.direct.get<Data>(CONFIG_MAPS, INSTALLED_CONFIG_MAPS.caBundle, {
    namespace: VIRT_NAMESPACE,
  });
  const client = await s.clients.direct.get<Data>(SECRETS_GVR, SECRETS.rewriterClient, {
    namespace: VIRT_NAMESPACE,
  });
  const pods = await s.clients.kv.list<Pod>(PODS, {
    namespace: VIRT_NAMESPACE,
    labelSelector: 'kubevirt.io=virt-api',
  });
  return {
    ca: bundle.data?.[CA_BUNDLE_KEY] ?? '',
    cert: text(client, TLS_CERT_KEY),
    key: text(client, TLS_KEY_KEY),
    pods: pods.items.flatMap((p) => (p.status?.podIP === undefined ? [] : [p.status.podIP])),
  };
}

interface Flood {
  /** Resolves once every review is written to the api (or its connection failed). */
  readonly sent: Promise<void>;
  /** The count of each answer's status, or of each connection error, once all are settled. */
  readonly answers: Promise<Record<string, number>>;
}

/** REVIEWS reviews at once, spread over the api Pods, each on its own connection, as their sidecar sends them. */
async function startFlood(): Promise<Flood> {
  const { ca, cert, key, pods } = await sidecarCredentials();
  if (pods.length === 0) throw new Error('no api Pod has an address');
  const vm = await exampleVm(s.ns, 'flooded');
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  let settled = 0;
  let allSent: () => void = () => undefined;
  const sent = new Promise<void>((resolve) => (allSent = resolve));
  const one = (i: number): Promise<string> =>
    new Promise((resolve) => {
      let counted = false;
      const written = (): void => {
        if (counted) return;
        counted = true;
        if (++settled === REVIEWS) allSent();
      };
      const req = httpsRequest(
        {
          ...{
            host: pods[i % pods.length],
            port: PORTS.api,
            servername: `virt-api.${VIRT_NAMESPACE}.svc`,
            path: WEBHOOKS.vmValidate.path,
            method: 'POST',
          },
          ...{ ca, cert, key, agent, headers: { 'content-type': 'application/json' } },
        },
        (res) => {
          res.resume();
          res.on('error', () => undefined);
          res.on('close', () => {
            resolve(String(res.statusCode));
          });
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) => {
        written();
        resolve(err.code ?? err.message);
      });
      req.on('finish', written);
      req.end(review(vm, i));
    });
  const answers = Promise.all(Array.from({ length: REVIEWS }, (_, i) => one(i))).then((codes) => {
    agent.destroy();
    const counts: Record<string, number> = {};
    for (const c of codes) counts[c] = (counts[c] ?? 0) + 1;
    return counts;
  });
  return { sent, answers };
}

/** Runs `op` once a flood has reached the api; how long it took and the flood's answers are printed. */
async function underFlood<T>(what: string, op: () => Promise<T>): Promise<T> {
  const flood = await startFlood();
  await flood.sent;
  const started = Date.now();
  const result = await op();
  process.stderr.write(`${what} under a flood of ${REVIEWS} reviews: ${Date.now() - started} ms\n`);
  process.stderr.write(`the flood's answers by status: ${JSON.stringify(await flood.answers)}\n`);
  return result;
}

describe('a flood of admission reviews', () => {
  it('leaves a VM start and a console to the api within their usual time', async () => {
    const vm = await exampleVm(s.ns, VM);
    vm.spec.runStrategy = 'Halted';
    await s.clients.kv.create(VIRTUAL_MACHINES, vm);
    const cli = virtctl(s.c.kubeconfig, s.ns);
    await underFlood('virtctl-ts start and the VMI Running', async () => {
      const r = await cli.run('start', VM);
      expect(r).toMatchObject({ code: 0 });
      await s.running(VM, 300_000);
    });
    const con = await underFlood('virtctl-ts console connected', async () => {
      const opened = cli.console(VM);
      await opened.connected(60_000).catch(async (err: unknown) => {
        opened.stop();
        await opened.exited;
        throw err;
      });
      return opened;
    });
    try {
      await con.until(MARKER, 120_000);
    } finally {
      con.type(ESCAPE);
      await con.exited;
    }
    await s.clients.kv.delete(VIRTUAL_MACHINES, VM, { namespace: s.ns });
  }, 900_000);
});
