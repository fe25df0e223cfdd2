/**
 * The kind workflow's steps after "the cluster exists" (`e2e/kind/smoke.sh`), run here against the local cluster,
 * so the workflow's logic is tested on every CI run: manifests/ applied with kubectl, the local KubeVirt resource
 * (the kind one adapted to this node, as ./dev run's) until Available, the example VM until Running and its guest's
 * marker read with virtctl-ts console, then the VM and the resource deleted. The operator the script installs is
 * removed afterwards.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { storedForm } from '../../lib/operator/generate/operator-install.ts';
import { newNamespaceName } from '../../testenv/handle.ts';
import { useLocalCluster, type TestCluster } from './testing/cluster.ts';
import { localKubeVirt, uninstallVirt } from './virt-install.ts';
import { virtClients } from './virt.ts';

const SMOKE = fileURLToPath(new URL('../kind/smoke.sh', import.meta.url));
let c: TestCluster | undefined;
let dir = '';

beforeAll(async () => {
  c = await useLocalCluster();
  dir = await mkdtemp(join(tmpdir(), 'kv-smoke-'));
}, 1_200_000);

afterAll(async () => {
  if (c !== undefined) {
    const clients = virtClients(c.kubeconfig, 'kubevirt-ts/kind-smoke');
    await uninstallVirt(clients, { dir: c.dir }).finally(() => clients.close());
    await c.release();
  }
  await rm(dir, { recursive: true, force: true });
}, 300_000);

function run(file: string, kubeconfig: string, ns: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    let out = '';
    const child = spawn('bash', [SMOKE, file], {
      env: { ...process.env, KUBECONFIG: kubeconfig, SMOKE_NAMESPACE: ns },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.once('exit', (code) => {
      resolve({ code, out });
    });
  });
}

describe("the kind workflow's smoke script", () => {
  it('installs from manifests/, runs the example VM to its marker and removes it again', async () => {
    const cluster = c;
    if (cluster === undefined) throw new Error('no cluster');
    const file = join(dir, 'kubevirt.yaml');
    await writeFile(file, stringify(storedForm(localKubeVirt(cluster.dir))));
    const r = await run(file, cluster.kubeconfig, newNamespaceName('smoke'));
    if (r.code !== 0) process.stderr.write(r.out);
    expect(r.code).toBe(0);
    expect(r.out).toContain('KUBEVIRT-TS-GUEST-READY');
  }, 1_200_000);
});
