/**
 * Real kubectl through the kube-api proxy, as a user of the rewriter runs it: `kubectl get` shows the same
 * server-side columns for VirtualMachine, VirtualMachineInstance, VirtualMachineInstanceMigration and KubeVirt
 * as it shows for the internal resources straight from the API server (Table answers restored), and
 * `kubectl explain` finds their schemas under kubevirt.io (OpenAPI v3 restored) with the same fields.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { kubectlBinary } from '../../../testenv/binaries.ts';
import type { GroupVersionResource, KubeObject } from '../../kernel/kube/index.ts';
import {
  KUBEVIRTS,
  VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../kubevirt/gvr.ts';
import {
  kubevirtSpec,
  migrationSpec,
  richVmiSpec,
  richVmSpec,
  vmiStatusRunning,
  vmStatusRunning,
} from '../../kubevirt/testing/fixtures.ts';
import { Registry } from 'prom-client';
import { nopLogger } from '../../kernel/log/log.ts';
import { startKubeApiProxy } from './kube-api.ts';
import { rewriterMetrics } from './metrics.ts';
import type { ProxyServer } from './serve.ts';
import { startCluster, type Cluster } from './testing/cluster.ts';
import { Upstream } from './upstream.ts';

const run = promisify(execFile);

let c: Cluster;
let kubectl: string;
let dir: string;
let proxyConfig: string;
let lending: ProxyServer;

// kubectl sends no bearer token over plain http, so it goes through a TCP listener that lends the rewriter's
// identity (the admin's here), as the sidecar's unix socket does for its own container.
beforeAll(async () => {
  kubectl = await kubectlBinary();
  c = await startCluster('rewriter-kubectl');
  dir = await mkdtemp(join(tmpdir(), 'kv-kubectl-itest-'));
  const upstream = new Upstream({ config: c.config, keepAliveTimeout: 10 });
  lending = await startKubeApiProxy({
    index: c.index,
    upstream,
    metrics: rewriterMetrics(new Registry()),
    log: nopLogger,
    maxBodyBytes: 32 << 20,
    endpoint: { host: '127.0.0.1', port: 0 },
    credentialLess: 'lend',
  });
  c.onClose(async () => {
    await lending.close(100);
    await upstream.destroy();
  });
  proxyConfig = join(dir, 'proxy.kubeconfig');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'proxy', cluster: { server: `http://127.0.0.1:${lending.port}` } }],
    users: [{ name: 'rewriter', user: {} }],
    contexts: [{ name: 'proxy', context: { cluster: 'proxy', user: 'rewriter', namespace: c.ns } }],
    'current-context': 'proxy',
  };
  await writeFile(proxyConfig, JSON.stringify(config), { mode: 0o600 });
});
afterAll(async () => {
  await c.close();
  await rm(dir, { recursive: true, force: true });
});

/** kubectl through the proxy (`proxy`) or straight to the API server with the admin's kubeconfig. */
async function kubectlOut(via: 'proxy' | 'direct', args: readonly string[]): Promise<string> {
  const kubeconfig = via === 'proxy' ? proxyConfig : (process.env['KUBECONFIG'] ?? '');
  const { stdout } = await run(
    kubectl,
    ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, `cache-${via}`), '-n', c.ns, ...args],
    { timeout: 60_000 },
  );
  return stdout;
}

/** The table kubectl printed, with the Age column's values masked (the two reads are a moment apart). */
function masked(out: string): string[][] {
  const rows = out
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));
  const age = rows[0]?.indexOf('AGE') ?? -1;
  return rows.map((r, i) => (i > 0 && age >= 0 ? r.map((v, j) => (j === age ? '<age>' : v)) : r));
}

interface Case {
  readonly short: string;
  readonly type: GroupVersionResource;
  readonly internal: string;
  readonly kind: string;
  readonly spec: () => unknown;
  readonly status: () => unknown;
  readonly field: string;
}

const INTERNAL = 'internal.virtualization.deckhouse.io';
const CASES: readonly Case[] = [
  {
    short: 'vm',
    type: VIRTUAL_MACHINES,
    internal: 'internalvirtualizationvirtualmachines',
    kind: 'VirtualMachine',
    spec: richVmSpec,
    status: vmStatusRunning,
    field: 'runStrategy',
  },
  {
    short: 'vmi',
    type: VIRTUAL_MACHINE_INSTANCES,
    internal: 'internalvirtualizationvirtualmachineinstances',
    kind: 'VirtualMachineInstance',
    spec: richVmiSpec,
    status: vmiStatusRunning,
    field: 'domain',
  },
  {
    short: 'vmim',
    type: VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
    internal: 'internalvirtualizationvirtualmachineinstancemigrations',
    kind: 'VirtualMachineInstanceMigration',
    spec: () => migrationSpec('shown'),
    status: () => ({ phase: 'Running' }),
    field: 'vmiName',
  },
  {
    short: 'kv',
    type: KUBEVIRTS,
    internal: 'internalvirtualizationkubevirts',
    kind: 'KubeVirt',
    spec: kubevirtSpec,
    status: () => ({ phase: 'Deployed' }),
    field: 'configuration',
  },
];

describe.each(CASES)('kubectl through the rewriter: $kind', (k) => {
  beforeAll(async () => {
    const obj = { apiVersion: 'kubevirt.io/v1', kind: k.kind, metadata: { name: 'shown', namespace: c.ns } };
    const created = await c.viaProxy.create<KubeObject>(k.type, { ...obj, spec: k.spec() } as KubeObject, {
      namespace: c.ns,
    });
    // The VMI has no status subresource (as in KubeVirt): its status is written with the object.
    await c.viaProxy.update(k.type, { ...created, status: k.status() } as KubeObject, {
      namespace: c.ns,
      ...(k.short !== 'vmi' && { subresource: 'status' }),
    });
  });

  it('get shows the same columns and values as the internal resource', async () => {
    const through = masked(await kubectlOut('proxy', ['get', k.short, 'shown', '-o', 'wide']));
    const direct = masked(
      await kubectlOut('direct', ['get', `${k.internal}.${INTERNAL}`, 'shown', '-o', 'wide']),
    );
    expect(through[0]).toContain('NAME');
    expect(through[0]?.length).toBeGreaterThan(2);
    expect(through).toEqual(direct);
  });

  it('explain finds the kubevirt.io schema with the internal one’s fields', async () => {
    const through = await kubectlOut('proxy', ['explain', `${k.short}.spec`]);
    const direct = await kubectlOut('direct', ['explain', `${k.internal}.${INTERNAL}.spec`]);
    expect(through).toMatch(new RegExp(`^GROUP:\\s+kubevirt\\.io$`, 'm'));
    expect(through).toMatch(new RegExp(`^KIND:\\s+${k.kind}$`, 'm'));
    expect(through).toContain(`  ${k.field}\t`);
    const fields = (out: string): string => out.slice(out.indexOf('FIELDS:'));
    expect(fields(through)).toEqual(fields(direct));
  });
});
