/**
 * The local cluster with its second node (`up --nodes 2`, e2e/local/second-node.ts): node `local-2` is Ready
 * with its own address and Pod range, the operator's handler DaemonSet runs a handler on it, a VM pinned to it
 * runs there and its console answers through the api; taking the node away leaves the host as it was (no veth, no
 * route, no cgroup, no mount, no process of the node) while node `local` stays Ready.
 */
import { readdir, readFile, readlink, stat } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import { PODS, NODES } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { VIRTUAL_MACHINES } from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { readMountPoints } from '../../lib/kernel/host/mounts.ts';
import { MARKER } from '../../testenv/guests/guests.ts';
import { removeSecondNode } from '../local/cluster.ts';
import { attempt } from '../local/exec.ts';
import { FIRST_NODE, SECOND_NODE } from '../local/layout.ts';
import { nodeReady } from '../local/up-node.ts';
import { HOST_VETH, secondNodeLayout } from '../local/second-node.ts';
import { VIRT_NAMESPACE } from '../local/virt-install.ts';
import { exampleVm } from '../local/virt.ts';
import { createLogger } from '../../lib/kernel/log/log.ts';
import { scenario } from './stack.ts';
import { virtctl } from './virtctl.ts';

const s = scenario('e2e-nodes', { nodes: 2 });
const VM = 'on-second';
const forwarding = (): Promise<string> => readFile('/proc/sys/net/ipv4/ip_forward', 'utf8');
const hostForwarding = forwarding();

interface NodeDoc {
  metadata: { name?: string };
  status?: { addresses?: { type?: string; address?: string }[] };
}

describe('the second node', () => {
  it('is Ready beside node local, at its own address, and runs a handler of the DaemonSet', async () => {
    const nodes = await s.clients.direct.list<NodeDoc>(NODES);
    const internal = (n: string): string | undefined =>
      nodes.items.find((x) => x.metadata.name === n)?.status?.addresses?.find((a) => a.type === 'InternalIP')
        ?.address;
    expect(internal(FIRST_NODE.name)).toBe(FIRST_NODE.ip);
    expect(internal(SECOND_NODE.name)).toBe(SECOND_NODE.ip);
    expect(await nodeReady(s.c.api, undefined, SECOND_NODE.name)).toBe(true);
    const handlerReady = async (): Promise<boolean> => {
      const pods = await s.clients.kv.list<Pod>(PODS, {
        namespace: VIRT_NAMESPACE,
        labelSelector: 'kubevirt.io=virt-handler',
      });
      const ready = (p: Pod): boolean =>
        p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
      return pods.items.some((p) => p.spec.nodeName === SECOND_NODE.name && ready(p));
    };
    await waitFor(handlerReady, 'a Ready handler on local-2', { timeoutMs: 180_000, intervalMs: 1000 });
    // The node's forwarding is its own namespace's: the host's is what it was.
    expect(await forwarding()).toBe(await hostForwarding);
  }, 240_000);

  it('runs a VM pinned to it: the launcher Pod has an address of its range and the console answers', async () => {
    const vm = await exampleVm(s.ns, VM);
    vm.spec.template.spec.nodeSelector = { 'kubernetes.io/hostname': SECOND_NODE.name };
    await s.clients.kv.create(VIRTUAL_MACHINES, vm, { namespace: s.ns });
    const vmi = await s.running(VM);
    expect(vmi.status?.nodeName).toBe(SECOND_NODE.name);
    const pod = await s.launcherPod(vmi.metadata.uid ?? '');
    expect(pod?.spec.nodeName).toBe(SECOND_NODE.name);
    expect(pod?.status?.podIP?.startsWith(SECOND_NODE.podCidr.replace(/0\/24$/, ''))).toBe(true);
    const con = virtctl(s.c.kubeconfig, s.ns).console(VM);
    try {
      await con.connected(60_000);
      await con.until(MARKER, 240_000, 0);
    } finally {
      con.stop();
      await con.exited;
    }
    await s.clients.kv.delete(VIRTUAL_MACHINES, VM, { namespace: s.ns });
    await waitFor(async () => (await s.vmi(VM)) === undefined, 'the VMI gone', {
      timeoutMs: 120_000,
      intervalMs: 1000,
    });
  }, 480_000);

  it('goes away and leaves the host as it was, node local staying Ready', async () => {
    const n = secondNodeLayout({ dir: s.c.dir });
    const netns = `net:[${(await stat(n.netNs)).ino}]`;
    const removed = await removeSecondNode(s.c.dir, createLogger({ component: 'two-nodes-test' }));
    expect(removed).toContain(`veth ${HOST_VETH}`);
    expect((await attempt('ip', ['link', 'show', HOST_VETH])).code).not.toBe(0);
    expect((await attempt('ip', ['route', 'show', SECOND_NODE.podCidr])).stdout.trim()).toBe('');
    const cgroups: string[] = [];
    for (const h of await readdir('/sys/fs/cgroup')) {
      const names = await readdir(`/sys/fs/cgroup/${h}`).catch((): string[] => []);
      if (names.includes((SECOND_NODE.cgroupRoot ?? '').slice(1))) cgroups.push(h);
    }
    expect(cgroups).toEqual([]);
    expect((await readMountPoints()).filter((m) => m.startsWith(n.dir))).toEqual([]);
    const inNode: string[] = [];
    for (const pid of (await readdir('/proc')).filter((p) => /^\d+$/.test(p))) {
      if ((await readlink(`/proc/${pid}/ns/net`).catch(() => '')) === netns) inNode.push(pid);
    }
    expect(inNode).toEqual([]);
    expect(await s.c.api.find(`/api/v1/nodes/${SECOND_NODE.name}`)).toBeUndefined();
    expect(await nodeReady(s.c.api, undefined, FIRST_NODE.name)).toBe(true);
    expect(await forwarding()).toBe(await hostForwarding);
  }, 240_000);
});
