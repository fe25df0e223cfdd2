/**
 * virtiofs on the real local cluster: a VM (the agent test guest) with two filesystems, a PersistentVolumeClaim
 * of the local StorageClass and a ConfigMap, each with a `hello` file. The controller gives the launcher Pod a
 * `virtiofs-<volume>` container per filesystem running the image's Rust virtiofsd as uid 107 with no
 * capabilities; the launcher renders `<filesystem>` devices on shared memfd memory once their sockets are
 * there; the guest mounts each tag (kvts.virtiofs=<tag> on its kernel command line) and prints its hello line
 * before its ready marker, then writes a file to the claim, which the node sees owned by uid 107.
 */
import { describe, expect, it } from '@jest/globals';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NON_ROOT_UID, VIRTUAL_MACHINES } from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { CONFIG_MAPS, PODS } from '../../lib/kernel/kube/index.ts';
import { MARKER, VIRTIOFS_MARKER, virtiofsParam } from '../../testenv/guests/guests.ts';
import { boundClaimDir } from './testing/claims.ts';
import { virtSuite } from './testing/suite.ts';
import { agentVm, readSerial, vmiRunning } from './virt.ts';

const s = virtSuite('virtiofs', { handler: true });
const NAME = 'shares';
const CLAIM = 'virtiofs-share';
const PVC_LINE = 'hello from the claim over virtiofs';
const CM_LINE = 'hello from the config map over virtiofs';

describe('virtiofs filesystems', () => {
  it('the guest mounts a claim and a ConfigMap served by unprivileged virtiofsd containers', async () => {
    const dir = await boundClaimDir(s.clients.direct, s.ns, CLAIM);
    await writeFile(join(dir, 'hello'), `${PVC_LINE}\nsecond line\n`, { mode: 0o644 });
    await s.clients.direct.create(CONFIG_MAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: s.ns },
      data: { hello: `${CM_LINE}\n` },
    });

    const vm = await agentVm(s.ns, NAME);
    vm.spec.runStrategy = 'Always';
    const spec = vm.spec.template.spec;
    const boot = spec.domain.firmware?.kernelBoot;
    if (boot === undefined) throw new Error('the agent VM boots no kernel');
    boot.kernelArgs = [boot.kernelArgs ?? '', virtiofsParam('share'), virtiofsParam('settings')]
      .join(' ')
      .trim();
    spec.domain.devices.filesystems = [
      { name: 'share', virtiofs: {} },
      { name: 'settings', virtiofs: {} },
    ];
    spec.volumes = [
      ...(spec.volumes ?? []),
      { name: 'share', persistentVolumeClaim: { claimName: CLAIM } },
      { name: 'settings', configMap: { name: 'settings' } },
    ];
    await s.clients.kv.create(VIRTUAL_MACHINES, vm);

    const vmi = await vmiRunning(s.clients, s.ns, NAME);
    const selector = `kubevirt.io/created-by=${vmi.metadata.uid ?? ''}`;
    const pods = await s.clients.kv.list<Pod>(PODS, { namespace: s.ns, labelSelector: selector });
    const launcher = pods.items.find((p) => p.metadata.name?.startsWith(`virt-launcher-${NAME}-`) === true);
    expect(launcher?.spec.containers.map((c) => c.name)).toEqual([
      'compute',
      'virtiofs-share',
      'virtiofs-settings',
    ]);
    const serial = { podUid: launcher?.metadata.uid ?? '', vmiUid: vmi.metadata.uid ?? '' };
    const text = await readSerial({ ...serial, until: MARKER, timeoutMs: 180_000 }, s.c.dir);
    expect(text).toContain(`${VIRTIOFS_MARKER} share ${PVC_LINE}`);
    expect(text).toContain(`${VIRTIOFS_MARKER} settings ${CM_LINE}`);
    // The guest writes to the claim through virtiofsd, which runs as uid 107 (the local volumes are 0777).
    const wrote = await readSerial(
      {
        ...serial,
        send: 'echo from-the-guest >/mnt/share/written && echo WROTE-$((40+2))',
        until: 'WROTE-42',
        timeoutMs: 30_000,
      },
      s.c.dir,
    );
    expect(wrote).toContain('WROTE-42');
    const written = join(dir, 'written');
    expect(await readFile(written, 'utf8')).toBe('from-the-guest\n');
    expect((await stat(written)).uid).toBe(NON_ROOT_UID);
  });
});
