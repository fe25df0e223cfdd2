/**
 * Launcher Pods run for real on the local cluster: with the controller role running here (a host process, as
 * `./dev run` runs it) against the cluster, the example VM (runStrategy Always) gets its launcher Pod scheduled
 * to node `local` by kube-scheduler; the kubelet starts it from the project's image; its containerDisk and
 * kernel-boot images are mounted where the converter looks; the launcher starts its own libvirt and answers Ping
 * on `launcher-sock` in the Pod's `sockets` emptyDir under the kubelet's pods dir (where the handler will find
 * it); the VMI reaches Scheduled. Deleting the VM removes the Pod and every process of it.
 */
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachineInstance,
} from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { isNotFound } from '../../lib/kernel/errors/errors.ts';
import { PODS } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { POD_LAYOUT, newCmdClient } from '../../lib/rpc/index.ts';
import { IMAGES, NODE_NAME } from './layout.ts';
import { pidsNaming } from './testing/procs.ts';
import { virtSuite } from './testing/suite.ts';
import { exampleVm, launcherSocketPath } from './virt.ts';

const s = virtSuite('launcher-pod', { handler: false });

const launcherPods = async (): Promise<Pod[]> =>
  (await s.clients.kv.list<Pod>(PODS, { namespace: s.ns, labelSelector: 'kubevirt.io=virt-launcher' })).items;

describe('a launcher Pod on the real kubelet', () => {
  it('runs the example VM to Scheduled, serves launcher-sock, and goes away with the VM', async () => {
    await s.clients.kv.create(VIRTUAL_MACHINES, await exampleVm(s.ns));
    const pod = await waitFor(
      async () => (await launcherPods()).find((p) => p.status?.phase === 'Running'),
      'the launcher Pod to run',
      { timeoutMs: 120_000 },
    );
    expect(pod.spec.nodeName).toBe(NODE_NAME);
    expect(pod.spec.containers[0]?.image).toBe(IMAGES.virt);

    const vmi = await waitFor(
      async () => {
        const v = await s.clients.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, 'tiny', {
          namespace: s.ns,
        });
        return v.status?.phase === 'Scheduled' ? v : undefined;
      },
      'the VMI to be Scheduled',
      { timeoutMs: 60_000 },
    );
    expect(vmi.status?.nodeName).toBe(NODE_NAME);
    const vmiUid = vmi.metadata.uid ?? '';

    const socket = launcherSocketPath(pod.metadata.uid ?? '', s.c.dir);
    const launcher = await waitFor(
      () => existsSync(socket) && newCmdClient(socket),
      `a launcher at ${socket}`,
      {
        timeoutMs: 60_000,
      },
    );
    try {
      expect((await launcher.ping()).success).toBe(true);
    } finally {
      launcher.close();
    }

    // The image volumes, seen from inside the launcher's container (its root through /proc). The image's
    // /var/run is a symlink to /run, and a symlink read through /proc/<pid>/root resolves on the host: use /run.
    const [pid] = pidsNaming(vmiUid);
    expect(pid).toBeDefined();
    const inPod = (p: string): string => `/proc/${pid}/root${p.replace(/^\/var\/run\//, '/run/')}`;
    expect(readdirSync(inPod(`${POD_LAYOUT.containerDiskDir(0)}/disk`))).toEqual(['disk.qcow2']);
    expect(existsSync(inPod(`${POD_LAYOUT.kernelBootDir}/boot/vmlinux`))).toBe(true);
    expect(existsSync(inPod(`${POD_LAYOUT.kernelBootDir}/boot/initramfs.cpio.gz`))).toBe(true);

    await s.clients.kv.delete(VIRTUAL_MACHINES, 'tiny', { namespace: s.ns });
    await waitFor(async () => (await launcherPods()).length === 0, 'the launcher Pod to be gone', {
      timeoutMs: 90_000,
    });
    await waitFor(() => pidsNaming(vmiUid).length === 0, 'the launcher processes to exit', {
      timeoutMs: 30_000,
    });
    // Gone, or on its way out: the VMI's last finalizer is the handler's to remove (when it reports Succeeded).
    const left = await s.clients.kv
      .get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, 'tiny', { namespace: s.ns })
      .catch((e: unknown) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });
    expect(left === undefined || left.metadata.deletionTimestamp !== undefined).toBe(true);
  }, 300_000);
});
