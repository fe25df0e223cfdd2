/**
 * The local cluster's node, end to end on the real kubelet, containerd 2 and kube-proxy: the project's
 * image runs its self-check in a Pod; the guests' containerDisk and kernel-boot images mount as Pod image
 * volumes at the launcher's paths with their files intact; a `local` claim is bound by
 * kube-controller-manager and mounted; a Service is reached through kube-proxy from a host-network Pod
 * and from the host; a kubelet restart leaves a running Pod's container (same PID) alone.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ensureGuests } from '../../testenv/guests/guests.ts';
import { newNamespaceName } from '../../testenv/handle.ts';
import { restartKubelet } from './cluster.ts';
import { run } from './exec.ts';
import { IMAGES } from './layout.ts';
import { useLocalCluster, type TestCluster } from './testing/cluster.ts';
import { containerTaskPid } from './testing/tasks.ts';
import {
  createNamespace,
  createPod,
  deleteNamespace,
  logs,
  pod,
  podPath,
  waitReady,
  waitSucceeded,
  type PodDoc,
} from './testing/pods.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';

const DISK_DIR = '/var/run/kubevirt-image-volume/disk_0';
const KERNEL_DIR = '/var/run/kubevirt-kernel-boot';

let c: TestCluster;
let ns: string;

beforeAll(async () => {
  c = await useLocalCluster();
  ns = newNamespaceName('local-node');
  await createNamespace(c.api, ns);
}, 1_200_000);

afterAll(async () => {
  await deleteNamespace(c.api, ns).catch(() => undefined);
  await c.release();
}, 300_000);

const sha256 = async (path: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

describe('local node', () => {
  it('runs the image self-check in a Pod (tini, every role, launcher convert)', async () => {
    await createPod(
      c.api,
      ns,
      pod(
        'image-check',
        { name: 'check', image: IMAGES.virt, command: ['/usr/bin/tini', '--', '/opt/virt/check.sh'] },
        { restartPolicy: 'Never' },
      ),
    );
    await waitSucceeded(c.api, ns, 'image-check');
    const out = await logs(c.api, ns, 'image-check');
    expect(out).toContain('image-check: virt launcher convert --emulation ok');
    expect(out.trimEnd().endsWith('IMAGE-CHECK-OK')).toBe(true);
  });

  it('mounts the containerDisk and kernel-boot images read-only at the launcher paths, files intact', async () => {
    const g = await ensureGuests();
    const script = [
      `sha256sum ${DISK_DIR}/disk/* ${KERNEL_DIR}/boot/vmlinux ${KERNEL_DIR}/boot/initramfs.cpio.gz`,
      `ls ${DISK_DIR}/disk | wc -l | sed 's/^/disk-files /'`,
      `if touch ${DISK_DIR}/disk/x 2>/dev/null; then echo WRITABLE; else echo READONLY; fi`,
      // Routes of the Pod: its subnet on eth0 only, no default route (nothing can leave the bridge).
      `awk 'NR > 1 { print "route " $1 " " $2 }' /proc/net/route`,
      'echo MOUNT-CHECK-DONE',
      'exec sleep 3600',
    ].join('; ');
    await createPod(
      c.api,
      ns,
      pod(
        'image-volumes',
        {
          name: 'launcher',
          image: IMAGES.virt,
          command: ['/bin/sh', '-c', script],
          volumeMounts: [
            { name: 'disk0', mountPath: DISK_DIR, readOnly: true },
            { name: 'kernel-boot-volume', mountPath: KERNEL_DIR, readOnly: true },
          ],
        },
        {
          volumes: [
            { name: 'disk0', image: { reference: IMAGES.guestDisk, pullPolicy: 'Never' } },
            { name: 'kernel-boot-volume', image: { reference: IMAGES.guestKernel, pullPolicy: 'Never' } },
          ],
        },
      ),
    );
    await waitReady(c.api, ns, 'image-volumes');
    const out = await waitFor(async () => {
      const text = await logs(c.api, ns, 'image-volumes');
      return text.includes('MOUNT-CHECK-DONE') ? text : undefined;
    }, 'mount check output');
    expect(out).toContain(`${await sha256(g.dataDisk)}  ${DISK_DIR}/disk/disk.qcow2`);
    expect(out).toContain(`${await sha256(g.kernel)}  ${KERNEL_DIR}/boot/vmlinux`);
    expect(out).toContain(`${await sha256(g.initrd)}  ${KERNEL_DIR}/boot/initramfs.cpio.gz`);
    expect(out).toContain('disk-files 1');
    expect(out).toContain('READONLY');
    expect(out).toContain('route eth0 0000F70A'); // 10.247.0.0/24, little-endian
    expect(out).not.toMatch(/route \S+ 00000000/);
  });

  it('binds a `local` claim through kube-controller-manager and mounts it in a Pod', async () => {
    const claim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data' },
      spec: {
        storageClassName: 'local',
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '1Gi' } },
      },
    };
    await c.api.create(`/api/v1/namespaces/${ns}/persistentvolumeclaims`, claim);
    const bound = await waitFor(async () => {
      const pvc = await c.api.get<{ status?: { phase?: string }; spec?: { volumeName?: string } }>(
        `/api/v1/namespaces/${ns}/persistentvolumeclaims/data`,
      );
      return pvc.status?.phase === 'Bound' ? pvc : undefined;
    }, 'claim Bound');
    const pv = await c.api.get<{ spec?: { hostPath?: { path?: string } } }>(
      `/api/v1/persistentvolumes/${bound.spec?.volumeName ?? ''}`,
    );
    await createPod(
      c.api,
      ns,
      pod(
        'claim-writer',
        {
          name: 'w',
          image: IMAGES.virt,
          command: ['/bin/sh', '-c', `echo written-by-${ns} > /data/proof`],
          volumeMounts: [{ name: 'd', mountPath: '/data' }],
        },
        { restartPolicy: 'Never', volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] },
      ),
    );
    await waitSucceeded(c.api, ns, 'claim-writer');
    expect(await readFile(`${pv.spec?.hostPath?.path ?? ''}/proof`, 'utf8')).toBe(`written-by-${ns}\n`);
  });

  it('reaches a ClusterIP Service through kube-proxy from a host-network Pod and from the host', async () => {
    const server = "require('http').createServer((q, s) => s.end('hello-from-pod')).listen(8080)";
    await createPod(
      c.api,
      ns,
      pod('echo', {
        name: 'echo',
        image: IMAGES.virt,
        command: ['node', '-e', server],
        ports: [{ containerPort: 8080 }],
      }),
    );
    const svc = await c.api.create<{ spec?: { clusterIP?: string } }>(`/api/v1/namespaces/${ns}/services`, {
      metadata: { name: 'echo' },
      spec: { selector: { app: 'echo' }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    const ip = svc.spec?.clusterIP ?? '';
    expect(ip).toMatch(/^10\.96\./);
    await waitReady(c.api, ns, 'echo');
    const client = [
      'const get = async (n) => {',
      `  try { const t = await (await fetch('http://${ip}/')).text(); console.log('GOT ' + t); }`,
      '  catch (e) { if (n > 0) { await new Promise((r) => setTimeout(r, 500)); return get(n - 1); } throw e; }',
      '};',
      'get(40);',
    ].join('\n');
    await createPod(
      c.api,
      ns,
      pod(
        'client',
        { name: 'client', image: IMAGES.virt, command: ['node', '-e', client] },
        { restartPolicy: 'Never', hostNetwork: true },
      ),
    );
    await waitSucceeded(c.api, ns, 'client');
    expect(await logs(c.api, ns, 'client')).toContain('GOT hello-from-pod');
    const fromHost = await waitFor(async () => {
      const r = await fetch(`http://${ip}/`, { signal: AbortSignal.timeout(2_000) });
      return r.text();
    }, 'Service from the host');
    expect(fromHost).toBe('hello-from-pod');
  });

  it('keeps a running Pod (same container and PID) across a kubelet restart', async () => {
    await createPod(
      c.api,
      ns,
      pod('survivor', { name: 's', image: IMAGES.virt, command: ['sleep', '3600'] }),
    );
    const before = await waitReady(c.api, ns, 'survivor');
    const id = before.status?.containerStatuses?.[0]?.containerID ?? '';
    expect(id).toMatch(/^containerd:\/\//);
    const pidBefore = await containerTaskPid(c.dir, id);
    await restartKubelet(c.dir);
    await waitFor(async () => {
      const p = await c.api.get<PodDoc>(podPath(ns, 'survivor'));
      return p.status?.conditions?.find((x) => x.type === 'Ready')?.status === 'True' ? p : undefined;
    }, 'pod Ready after the kubelet restart');
    await new Promise((r) => setTimeout(r, 3_000));
    const after = await c.api.get<PodDoc>(podPath(ns, 'survivor'));
    expect(after.status?.containerStatuses?.[0]?.containerID).toBe(id);
    expect(after.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    expect(await containerTaskPid(c.dir, id)).toBe(pidBefore);
    expect(await run('cat', [`/proc/${pidBefore}/cmdline`])).toContain('sleep');
  });
});
