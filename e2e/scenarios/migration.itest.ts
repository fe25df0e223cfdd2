/**
 * Live migration on the two-node local cluster, through the operator's install: `virtctl-ts migrate` makes a
 * VirtualMachineInstanceMigration, the controller makes the target Pod on the other node, the target handler
 * prepares its launcher and its proxy, the source handler migrates through the proxies (mutual TLS between the
 * two handlers), and the VMI ends on the other node with the same guest: a counter the guest started before
 * keeps counting after, and the guest did not boot again. A claim hotplugged before goes with it: the target
 * node mounts it from an attachment Pod of its own, the guest reads it there, and the source Pod's mount goes.
 */
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { StatusError } from '../../lib/kernel/errors/errors.ts';
import { NODES, PODS } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import {
  VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  KUBEVIRTS,
  VIRTUAL_MACHINES,
  type KubeVirt,
  type VirtualMachineInstance,
  type VirtualMachineInstanceMigration,
} from '../../lib/kubevirt/index.ts';
import { HOTPLUG_DISKS_VOLUME, podVolumeOnNode } from '../../lib/rpc/index.ts';
import { MARKER } from '../../testenv/guests/guests.ts';
import { secondNodeLayout } from '../local/second-node.ts';
import { claimWithDisk } from '../local/testing/claims.ts';
import { agentVm, kubeletPodsDir } from '../local/virt.ts';
import { localKubeVirt, VIRT_NAMESPACE } from '../local/virt-install.ts';
import { scenario } from './stack.ts';
import { virtctl } from './virtctl.ts';

const s = scenario('e2e-migrate', { nodes: 2 });
const VM = 'mover';
const MIGRATE_MS = 300_000;
/** The hotplugged claim that migrates with the guest, and the line its disk starts with. */
const DISK = 'moving-disk';
const DISK_MARKER = 'KVTS-MOVING-DISK';

/** The console's output once `text` showed after `from`; the session is closed after. */
async function consoleUntil(text: string, typed?: string): Promise<string> {
  const con = virtctl(s.c.kubeconfig, s.ns).console(VM);
  try {
    await con.connected(60_000);
    if (typed !== undefined) {
      await con.until(MARKER, 240_000, 0);
      con.type(typed);
    }
    return await con.until(text, 120_000, 0);
  } finally {
    con.stop();
    await con.exited;
  }
}

async function migrations(): Promise<VirtualMachineInstanceMigration[]> {
  return (
    await s.clients.kv.list<VirtualMachineInstanceMigration>(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, {
      namespace: s.ns,
    })
  ).items;
}

/** Sets the cluster's migration configuration (merged into the installed KubeVirt resource); null clears it. */
async function migrationConfig(migrations: Record<string, unknown> | null): Promise<void> {
  await s.clients.kv.patch<KubeVirt>(
    KUBEVIRTS,
    localKubeVirt().metadata.name ?? '',
    { spec: { configuration: { migrations } } },
    { namespace: VIRT_NAMESPACE, type: 'merge' },
  );
}

/** Types a command on the guest's console; resolves once `text` showed after it. */
async function inGuest(command: string, text: string): Promise<void> {
  const con = virtctl(s.c.kubeconfig, s.ns).console(VM);
  try {
    await con.connected(60_000);
    const from = con.output().length;
    con.type(`${command}\n`);
    await con.until(text, 60_000, from);
  } finally {
    con.stop();
    await con.exited;
  }
}

/** The VMI once the hotplugged disk is Ready on it (and `also` holds). */
const diskReady = (
  also: (v: VirtualMachineInstance) => boolean = () => true,
): Promise<VirtualMachineInstance> =>
  waitFor(
    async () => {
      const v = await s.vmi(VM);
      const ready = v?.status?.volumeStatus?.some((x) => x.name === DISK && x.phase === 'Ready') === true;
      return v !== undefined && ready && also(v) && v;
    },
    `the volume ${DISK} Ready`,
    { timeoutMs: 180_000, intervalMs: 500 },
  );

/** The guest reads the hotplugged disk's first line. */
async function guestReadsDisk(vmi: VirtualMachineInstance): Promise<void> {
  const dev = vmi.status?.volumeStatus?.find((x) => x.name === DISK)?.target ?? '';
  expect(dev).toMatch(/^sd[a-z]$/);
  await inGuest(`dd if=/dev/${dev} bs=${DISK_MARKER.length} count=1 2>/dev/null; echo`, DISK_MARKER);
}

/** A launcher Pod's entry of the hotplugged disk, in either node's kubelet dir as this host sees them. */
function diskEntries(podUid: string): string[] {
  const pods = kubeletPodsDir(s.c.dir);
  const node2 = join(secondNodeLayout({ dir: s.c.dir }).dir, 'stack', relative(s.c.dir, pods));
  return [pods, node2].map((d) => join(podVolumeOnNode(d, podUid, HOTPLUG_DISKS_VOLUME), `${DISK}.img`));
}

const attachPodOf = (v: VirtualMachineInstance): string =>
  v.status?.volumeStatus?.find((x) => x.name === DISK)?.hotplugVolume?.attachPodName ?? '';

/**
 * Hotplugs a claim both nodes see (ReadWriteMany keeps the VMI live-migratable) and has the guest read it;
 * resolves the name of its attachment Pod.
 */
async function plugDisk(): Promise<string> {
  await claimWithDisk(s.clients.direct, s.ns, DISK, { marker: DISK_MARKER, accessMode: 'ReadWriteMany' });
  const plug = await virtctl(s.c.kubeconfig, s.ns).run('addvolume', VM, '--volume-name', DISK);
  expect(plug).toEqual(expect.objectContaining({ code: 0 }));
  const plugged = await diskReady((v) =>
    (v.status?.conditions ?? []).some((c) => c.type === 'LiveMigratable' && c.status === 'True'),
  );
  await guestReadsDisk(plugged);
  return attachPodOf(plugged);
}

/**
 * The disk came along: Ready from the target node's own attachment Pod and read by the guest there; the source
 * Pod's mount of it is gone, so that the kubelet can remove that Pod's directory.
 */
async function diskMoved(
  after: VirtualMachineInstance,
  sourcePod: Pod | undefined,
  sourceAttachPod: string,
): Promise<void> {
  const target = await activePod(after);
  const attached = await diskReady((v) => attachPodOf(v) !== '' && attachPodOf(v) !== sourceAttachPod);
  await guestReadsDisk(attached);
  expect(diskEntries(target.metadata.uid ?? '').some((e) => existsSync(e))).toBe(true);
  await waitFor(
    () => !diskEntries(sourcePod?.metadata.uid ?? '').some((e) => existsSync(e)),
    'the source Pod’s mount of the disk gone',
    { timeoutMs: 60_000, intervalMs: 1000 },
  );
}

/** Runs fn under these migration settings; each is cleared again after, however fn ends. */
async function withMigrationConfig<T>(settings: Record<string, unknown>, fn: () => Promise<T>): Promise<T> {
  await migrationConfig(settings);
  try {
    return await fn();
  } finally {
    await migrationConfig(Object.fromEntries(Object.keys(settings).map((k) => [k, null])));
  }
}

/** Creates a migration of the VM's VMI. */
async function migrate(name: string): Promise<void> {
  await s.clients.kv.create(
    VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
    {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstanceMigration',
      metadata: { name },
      spec: { vmiName: VM },
    },
    { namespace: s.ns },
  );
}

const migration = (name: string): Promise<VirtualMachineInstanceMigration | undefined> =>
  s.clients.kv
    .get<VirtualMachineInstanceMigration>(VIRTUAL_MACHINE_INSTANCE_MIGRATIONS, name, { namespace: s.ns })
    .catch(() => undefined);

/** The migration once it is in one of these phases. */
const inPhase = (name: string, ...phases: string[]): Promise<VirtualMachineInstanceMigration> =>
  waitFor(
    async () => {
      const m = await migration(name);
      return phases.includes(m?.status?.phase ?? '') && m;
    },
    `migration ${name} in ${phases.join(' or ')}`,
    { timeoutMs: MIGRATE_MS, intervalMs: 500 },
  );

/**
 * The guest is still the one booted at first, on `node`: Running there, and its shell still holds the variable set
 * before the first migration (a guest that booted again would have none).
 */
async function stillOn(node: string | undefined): Promise<void> {
  const vmi = await s.running(VM);
  expect(vmi.status?.nodeName).toBe(node);
  const con = virtctl(s.c.kubeconfig, s.ns).console(VM);
  try {
    await con.connected(60_000);
    const from = con.output().length;
    con.type('echo "STILL $KEPT"\n');
    await con.until('STILL k42', 60_000, from);
  } finally {
    con.stop();
    await con.exited;
  }
}

/** The VMI's launcher Pod running on its node. */
async function activePod(vmi: VirtualMachineInstance): Promise<Pod> {
  const pods = await s.clients.kv.list<Pod>(PODS, {
    namespace: s.ns,
    labelSelector: `kubevirt.io/created-by=${vmi.metadata.uid ?? ''}`,
  });
  const pod = pods.items.find(
    (p) => p.spec.nodeName === vmi.status?.nodeName && p.status?.phase === 'Running',
  );
  if (pod === undefined)
    throw new Error(`no running launcher Pod of ${VM} on ${vmi.status?.nodeName ?? '?'}`);
  return pod;
}

/** POSTs an Eviction of the Pod, as `kubectl drain` does: the HTTP code of the answer. */
async function evict(pod: string): Promise<number> {
  const body = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: s.ns } };
  try {
    await s.clients.direct.request({
      method: 'POST',
      path: `/api/v1/namespaces/${s.ns}/pods/${pod}/eviction`,
      body,
    });
    return 201;
  } catch (err) {
    if (err instanceof StatusError) return err.status.code;
    throw err;
  }
}

/** Marks the node (un)schedulable, as `kubectl cordon` and `uncordon` do. */
async function cordon(node: string, unschedulable: boolean): Promise<void> {
  await s.clients.direct.patch(NODES, node, { spec: { unschedulable } }, { type: 'merge' });
}

describe('live migration between the two nodes', () => {
  beforeAll(async () => {
    // libvirt counts a disk that no migration copies as shared only on a filesystem it knows to be (NFS, Ceph,
    // GlusterFS, …): the local cluster's ReadWriteMany volumes are directories of this host's own filesystem,
    // which both nodes see, so it would refuse the hotplugged claim as "Migration without shared storage is
    // unsafe". KubeVirt's override (VIR_MIGRATE_UNSAFE) says the storage is shared after all.
    await migrationConfig({ unsafeMigrationOverride: true });
  });
  afterAll(async () => {
    await migrationConfig(null);
  });

  it('moves a running guest and its hotplugged disk to the other node: same boot, the counter goes on, the source Pod goes', async () => {
    // The agent guest: it has the SCSI controller hotplugged disks go on.
    const vm = await agentVm(s.ns, VM);
    // A drain migrates it rather than evicting it (the drain case below).
    vm.spec.template.spec.evictionStrategy = 'LiveMigrate';
    await s.clients.kv.create(VIRTUAL_MACHINES, vm, { namespace: s.ns });
    const before = await s.running(VM);
    const sourcePod = await s.launcherPod(before.metadata.uid ?? '');
    await consoleUntil(
      'TICK 2',
      // 48 MiB of random bytes in the guest's RAM (its root is an initramfs): under a 1 MiB/s limit a migration
      // then runs long enough to be cancelled or broken.
      '\nKEPT=k$((6*7)); dd if=/dev/urandom of=/fill bs=1M count=48 2>/dev/null; i=0; while :; do echo TICK $i; i=$((i+1)); sleep 1; done &\n',
    );
    const sourceAttachPod = await plugDisk();

    const cli = await virtctl(s.c.kubeconfig, s.ns).run('migrate', VM);
    expect(cli).toEqual(expect.objectContaining({ code: 0 }));
    const done = await waitFor(
      async () => {
        const m = (await migrations())[0];
        return (m?.status?.phase === 'Succeeded' || m?.status?.phase === 'Failed') && m;
      },
      'the migration to end',
      { timeoutMs: MIGRATE_MS, intervalMs: 1000 },
    );
    expect({ phase: done.status?.phase, reason: done.status?.migrationState?.failureReason }).toEqual({
      phase: 'Succeeded',
      reason: undefined,
    });
    expect(done.spec.vmiName).toBe(VM);

    const after = await s.running(VM);
    expect(after.status?.nodeName).not.toBe(before.status?.nodeName);
    expect(after.status?.migrationState).toEqual(
      expect.objectContaining({ completed: true, targetNode: after.status?.nodeName }),
    );
    expect(after.status?.migrationState?.failed).not.toBe(true);
    await waitFor(
      async () => {
        const pod = await s.clients.kv.get<Pod>(PODS, sourcePod?.metadata.name ?? '', { namespace: s.ns });
        return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed' || undefined;
      },
      'the source launcher Pod ended',
      { timeoutMs: 120_000, intervalMs: 1000 },
    ).catch(async (err: unknown) => {
      // Deleted is gone as well.
      if (
        (await s.clients.kv
          .get<Pod>(PODS, sourcePod?.metadata.name ?? '', { namespace: s.ns })
          .catch(() => undefined)) !== undefined
      )
        throw err;
    });
    // The target's console starts with the migrated guest: no boot, the counter past where it was.
    const shown = await consoleUntil('TICK');
    expect(shown).not.toContain(MARKER);
    const ticks = [...shown.matchAll(/TICK (\d+)/g)].map((t) => Number(t[1]));
    expect(Math.max(...ticks)).toBeGreaterThan(2);
    await stillOn(after.status?.nodeName);
    await diskMoved(after, sourcePod, sourceAttachPod);
  }, 900_000);

  it('fails a migration that cannot finish in time: the guest keeps running where it was', async () => {
    const node = (await s.running(VM)).status?.nodeName;
    const limits = { bandwidthPerMigration: '1Mi', completionTimeoutPerGiB: 6, progressTimeout: 5 };
    await withMigrationConfig(limits, async () => {
      await migrate('too-slow');
      const failed = await inPhase('too-slow', 'Failed', 'Succeeded');
      expect(failed.status?.phase).toBe('Failed');
      expect(failed.status?.migrationState?.failureReason).toMatch(/aborted/);
    });
    await stillOn(node);
  }, 600_000);

  it('cancels a running migration by `virtctl-ts migrate-cancel`: the guest stays', async () => {
    const node = (await s.running(VM)).status?.nodeName;
    await withMigrationConfig({ bandwidthPerMigration: '1Mi' }, async () => {
      await migrate('cancelled');
      await inPhase('cancelled', 'Running');
      const cli = await virtctl(s.c.kubeconfig, s.ns).run('migrate-cancel', VM);
      if (cli.code !== 0) {
        const status = JSON.stringify((await migration('cancelled'))?.status);
        throw new Error(
          `migrate-cancel exited ${cli.code}: ${cli.stderr}; the migration's status: ${status}`,
        );
      }
      await waitFor(async () => (await migration('cancelled')) === undefined, 'the migration deleted', {
        timeoutMs: 120_000,
        intervalMs: 500,
      });
    });
    const vmi = await s.running(VM);
    expect(vmi.status?.migrationState).toEqual(
      expect.objectContaining({ abortStatus: 'Succeeded', failed: true }),
    );
    await stillOn(node);
  }, 600_000);

  it('fails a migration whose target handler is killed: the guest stays on the source', async () => {
    const node = (await s.running(VM)).status?.nodeName;
    await withMigrationConfig({ bandwidthPerMigration: '1Mi' }, async () => {
      await migrate('target-lost');
      await inPhase('target-lost', 'Running');
      const target = (await s.vmi(VM))?.status?.migrationState?.targetNode;
      const pods = await s.clients.direct.list<Pod>(PODS, { namespace: VIRT_NAMESPACE });
      const handler = pods.items.find(
        (p) => p.metadata.name?.startsWith('virt-handler-') === true && p.spec.nodeName === target,
      );
      expect(handler).toBeDefined();
      await s.clients.kv.delete(PODS, handler?.metadata.name ?? '', {
        namespace: VIRT_NAMESPACE,
        gracePeriodSeconds: 0,
      });
      const failed = await inPhase('target-lost', 'Failed', 'Succeeded');
      expect(failed.status?.phase).toBe('Failed');
    });
    await stillOn(node);
  }, 600_000);

  it('drains the VM node as `kubectl drain` does (cordon, evictions retried while refused): the VM migrates away', async () => {
    const vmi = await s.running(VM);
    const node = vmi.status?.nodeName ?? '';
    const pod = await activePod(vmi);
    await cordon(node, true);
    try {
      // Refused (429, Too Many Requests: drain retries), and the VMI is marked for evacuation from the node.
      expect(await evict(pod.metadata.name ?? '')).toBe(429);
      expect((await s.vmi(VM))?.status?.evacuationNodeName).toBe(node);
      const answer = await waitFor(
        async () => {
          const code = await evict(pod.metadata.name ?? '');
          return code !== 429 && code;
        },
        'the launcher Pod evicted once the VMI left',
        { timeoutMs: MIGRATE_MS, intervalMs: 5000 },
      );
      expect([201, 404]).toContain(answer);
    } finally {
      await cordon(node, false);
    }
    const after = await s.running(VM);
    expect(after.status?.nodeName).not.toBe(node);
    expect(after.status?.evacuationNodeName ?? '').toBe('');
    const evacuations = (await migrations()).filter(
      (m) => m.metadata.name?.startsWith('kubevirt-evacuation-') === true,
    );
    expect(evacuations.map((m) => m.status?.phase)).toEqual(['Succeeded']);
    await stillOn(after.status?.nodeName);
  }, 600_000);

  it('stops an evacuation by the fork’s evacuatecancel: the mark goes, no migration is made', async () => {
    const vmi = await s.running(VM);
    const node = vmi.status?.nodeName ?? '';
    const pod = await activePod(vmi);
    const before = (await migrations()).length;
    // Evacuation refused for want of a slot: the cluster allows no parallel migration while it is marked.
    await withMigrationConfig({ parallelMigrationsPerCluster: 0 }, async () => {
      expect(await evict(pod.metadata.name ?? '')).toBe(429);
      expect((await s.vmi(VM))?.status?.evacuationNodeName).toBe(node);
      await s.clients.direct.request({
        method: 'PUT',
        path: `/apis/subresources.kubevirt.io/v1/namespaces/${s.ns}/virtualmachines/${VM}/evacuatecancel`,
        body: {},
      });
      expect((await s.vmi(VM))?.status?.evacuationNodeName ?? '').toBe('');
    });
    // With slots again, nothing is evacuated: the mark was the only ask.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    expect(await migrations()).toHaveLength(before);
    await stillOn(node);
  }, 600_000);
});
