/**
 * Two controller replicas as separate processes on one Lease: the leader is killed with SIGKILL in the middle of
 * a burst of VM creations; the other replica takes the Lease over and finishes the work, and no VM ever gets a
 * second VMI or a VMI a second Pod (deterministic names and expectations; a fresh leader starts from a full list).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { testCluster, type TestCluster } from '../../testenv/cluster.ts';
import { VIRTUAL_MACHINE_INSTANCES, VIRTUAL_MACHINES } from '../kubevirt/gvr.ts';
import type { VirtualMachine, VirtualMachineInstance } from '../kubevirt/index.ts';
import { PODS } from '../kernel/kube/index.ts';
import type { KubeClient, WatchEvent } from '../kernel/kube/index.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES } from '../rename/index.ts';
import { rewritingClient } from '../rename/client/index.ts';
import type { Pod } from '../kubevirt/core/pod.ts';
import { waitFor } from '../kernel/testing/wait.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const N = 60;

interface Replica {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  exited: Promise<number | null>;
}

let cluster: TestCluster;
let kv: KubeClient;
let ns: string;
const replicas: Replica[] = [];

function startReplica(): Replica {
  const args = JSON.stringify({ kubeconfig: process.env['KUBECONFIG'], namespace: ns, workers: 4 });
  const child = spawn(
    process.execPath,
    [
      '--import',
      path.join(root, 'node_modules/tsx/dist/loader.mjs'),
      path.join(here, 'testing/controller-process.ts'),
      args,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const lines: Record<string, unknown>[] = [];
  let pending = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const l of parts) {
      try {
        lines.push(JSON.parse(l) as Record<string, unknown>);
      } catch {
        lines.push({ msg: l });
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      resolve(code);
    });
  });
  const r = { child, lines, exited };
  replicas.push(r);
  return r;
}

const leads = (r: Replica): boolean => r.lines.some((l) => l['msg'] === 'caches synced, starting workers');

function vm(name: string): VirtualMachine {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: { name, namespace: ns },
    spec: {
      runStrategy: 'Always',
      template: { spec: { domain: { resources: { requests: { memory: '64Mi' } }, devices: {} } } },
    },
  };
}

beforeAll(async () => {
  cluster = await testCluster('controller-ha', { userAgent: 'kubevirt-ts/controller-ha-itest' });
  ns = cluster.ns;
  kv = rewritingClient(cluster.direct, buildRuleIndex(KUBEVIRT_REWRITE_RULES));
});

afterAll(async () => {
  for (const r of replicas) if (r.child.exitCode === null) r.child.kill('SIGTERM');
  await Promise.all(replicas.map((r) => r.exited));
  await cluster.close();
});

describe('two controller replicas', () => {
  it('the standby finishes a burst after the leader is killed -9, with no duplicate VMI or Pod', async () => {
    const a = startReplica();
    const b = startReplica();
    const leader = await waitFor(() => Promise.resolve([a, b].find(leads)), 'a leader', {
      timeoutMs: 60_000,
    });
    const standby = leader === a ? b : a;
    expect(leads(standby)).toBe(false);

    const events: WatchEvent<VirtualMachineInstance>[] = [];
    const ac = new AbortController();
    const watching = (async (): Promise<void> => {
      for await (const ev of kv.watch<VirtualMachineInstance>(
        VIRTUAL_MACHINE_INSTANCES,
        { namespace: ns },
        ac.signal,
      ))
        events.push(ev);
    })();
    const names = Array.from({ length: N }, (_, i) => `ha-${i}`);
    const creating = Promise.all(names.map((n) => kv.create(VIRTUAL_MACHINES, vm(n))));
    const added = (): number => events.filter((e) => e.type === 'ADDED').length;
    await waitFor(() => Promise.resolve(added() >= N / 4 ? true : undefined), 'a quarter of the VMIs');
    expect(added()).toBeLessThan(N);
    leader.child.kill('SIGKILL');
    await leader.exited;
    await creating;

    await waitFor(() => Promise.resolve(leads(standby) ? true : undefined), 'the standby to take over', {
      timeoutMs: 60_000,
    });
    const pods = await waitFor(
      async () => {
        const list = await kv.list<Pod>(PODS, { namespace: ns });
        return list.items.length >= N ? list.items : undefined;
      },
      'a Pod for every VM',
      { timeoutMs: 90_000 },
    );
    const vmis = await kv.list<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, { namespace: ns });
    ac.abort();
    await watching;

    expect(vmis.items.map((v) => v.metadata.name).sort()).toEqual([...names].sort());
    expect(
      events
        .filter((e) => e.type === 'ADDED')
        .map((e) => e.object.metadata.name)
        .sort(),
    ).toEqual([...names].sort());
    expect(events.filter((e) => e.type === 'DELETED')).toEqual([]);
    expect(pods).toHaveLength(N);
    const owners = pods.map((p) => p.metadata.ownerReferences?.[0]?.uid ?? '');
    expect(new Set(owners).size).toBe(N);
    expect(new Set(owners)).toEqual(new Set(vmis.items.map((v) => v.metadata.uid)));
  });
});
