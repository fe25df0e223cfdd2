/**
 * A flood of admission reviews does not starve the api's own calls: on the local cluster with the roles as
 * `./dev run` runs them, 2,000 KubeVirt CR update reviews arrive at once at the api's webhook port (each trying
 * two placements as dry-run creates, with the rewriter's webhook client certificate), and once they are in a VM
 * starts; again, and its console opens; the VM reaches Running and the console connects within the bounds the
 * lifecycle scenario gives them (300 s, 60 s). The flood's answers (verdicts, 429s, connections the busy
 * machine could not take) are printed, not judged.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import { Agent, request as httpsRequest } from 'node:https';
import { VIRTUAL_MACHINES } from '../../lib/kubevirt/index.ts';
import { kubevirtCr, withSpec } from '../../lib/kubevirt/validation/testing/kubevirts.ts';
import { WEBHOOKS } from '../../lib/kubevirt/webhooks.ts';
import { MARKER } from '../../testenv/guests/guests.ts';
import { API_PORT } from '../local/host-roles.ts';
import { NETWORK } from '../local/layout.ts';
import { exampleVm } from '../local/virt.ts';
import { virtCertPaths } from '../local/virt-pki.ts';
import { scenario } from './stack.ts';
import { ESCAPE, virtctl } from './virtctl.ts';

const s = scenario('e2e-flood');
const VM = 'flood';
const REVIEWS = 2000;

/** A KubeVirt CR update moving the infra and workloads placements: two dry-run creates for the api. */
function review(ns: string, i: number): string {
  const kv = (nodeSelector?: Record<string, string>): unknown =>
    kubevirtCr(
      (k) => (k.metadata.namespace = ns),
      ...(nodeSelector === undefined
        ? []
        : [
            withSpec('infra', { nodePlacement: { nodeSelector } }),
            withSpec('workloads', { nodePlacement: { nodeSelector } }),
          ]),
    );
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `flood-${i}`,
      operation: 'UPDATE',
      userInfo: { username: 'admin' },
      resource: { group: 'kubevirt.io', version: 'v1', resource: 'kubevirts' },
      object: kv({ 'kubernetes.io/hostname': `node-${i}` }),
      oldObject: kv(),
    },
  });
}

interface Flood {
  /** Resolves once every review is written to the api (or its connection failed). */
  readonly sent: Promise<void>;
  /** The count of each answer's status, or of each connection error, once all are settled. */
  readonly answers: Promise<Record<string, number>>;
}

/** REVIEWS reviews at once, each on its own connection, with the rewriter's webhook client certificate. */
async function startFlood(): Promise<Flood> {
  const pki = virtCertPaths(s.c.dir);
  const [ca, cert, key] = await Promise.all(
    [pki.ca.cert, pki.webhookClient.cert, pki.webhookClient.key].map((f) => readFile(f, 'utf8')),
  );
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
            host: NETWORK.nodeIp,
            port: API_PORT,
            path: WEBHOOKS.kubevirtValidateUpdate.path,
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
      req.end(review(s.ns, i));
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
