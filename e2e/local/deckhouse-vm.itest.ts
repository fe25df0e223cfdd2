/**
 * A Linux VM shaped as Deckhouse's virtualization-controller builds it (kvbuilder), on the real local cluster:
 * - its boot disk is a filesystem claim holding a qcow2 image (the agent test guest's ext4 data disk, as
 *   Deckhouse's importer leaves one) declared `hotpluggable: true` from creation, with a serial, error policy
 *   `report` and boot order 1; a second filesystem claim holds no image yet and the launcher makes one, qcow2;
 * - cloud-init comes from a Secret; the template carries the fork's dynamic-cores marker and CPU fraction.
 * The handler waits for the boot claim to be mounted through its attachment Pod before the first start, so the
 * guest finds it as /dev/vda and mounts its ext4 (which it could not, were the qcow2 image handed over raw).
 * The test guests boot their kernel from the kernel-boot image: the boot order is rendered, not exercised.
 */
import { describe, expect, it } from '@jest/globals';
import { copyFile, open } from 'node:fs/promises';
import { join } from 'node:path';
import { ANNOTATIONS, VIRTUAL_MACHINES } from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { CONFIG_MAPS, PODS } from '../../lib/kernel/kube/index.ts';
import { ensureGuests, MARKER } from '../../testenv/guests/guests.ts';
import { boundClaimDir } from './testing/claims.ts';
import { virtSuite } from './testing/suite.ts';
import { agentVm, readSerial, vmiRunning } from './virt.ts';

const s = virtSuite('deckhouse-vm', { handler: true });
const NAME = 'linux';
const BOOT_CLAIM = 'd8v-vd-boot-0c1d';
const DATA_CLAIM = 'd8v-vd-data-5e2f';
const SECRETS = { ...CONFIG_MAPS, resource: 'secrets', kind: 'Secret' };
const QCOW2_MAGIC = Buffer.from('QFI\xfb', 'latin1');

async function firstBytes(file: string, n: number): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(n);
    await fh.read(buf, 0, n, 0);
    return buf;
  } finally {
    await fh.close();
  }
}

describe('a VM as Deckhouse builds it', () => {
  it('boots from a hotplug-declared qcow2 boot claim, with an image made on an empty claim', async () => {
    const guests = await ensureGuests();
    const bootDir = await boundClaimDir(s.clients.direct, s.ns, BOOT_CLAIM);
    await copyFile(guests.dataDisk, join(bootDir, 'disk.img'));
    const dataDir = await boundClaimDir(s.clients.direct, s.ns, DATA_CLAIM);
    await s.clients.direct.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'linux-cloud-init', namespace: s.ns },
      stringData: { userdata: '#cloud-config\nhostname: linux\n' },
    });

    const vm = await agentVm(s.ns, NAME);
    vm.spec.runStrategy = 'Always';
    const tmpl = vm.spec.template;
    tmpl.metadata = {
      ...tmpl.metadata,
      annotations: {
        [ANNOTATIONS.VCPU_TOPOLOGY_DYNAMIC_CORES]: '',
        [ANNOTATIONS.CPU_RESOURCES_REQUESTS_FRACTION]: '50',
      },
    };
    const spec = tmpl.spec;
    spec.domain.cpu = { cores: 1, sockets: 1 };
    spec.domain.features = { acpi: {}, smm: { enabled: true } };
    spec.domain.devices.disks = [
      { name: 'boot', disk: { bus: 'virtio' }, bootOrder: 1, serial: 'a1b2c3', errorPolicy: 'report' },
      { name: 'data', disk: { bus: 'virtio' }, serial: 'd4e5f6', errorPolicy: 'report' },
      { name: 'cloudinit', disk: { bus: 'virtio' } },
    ];
    spec.volumes = [
      { name: 'boot', persistentVolumeClaim: { claimName: BOOT_CLAIM, hotpluggable: true } },
      { name: 'data', persistentVolumeClaim: { claimName: DATA_CLAIM } },
      { name: 'cloudinit', cloudInitNoCloud: { secretRef: { name: 'linux-cloud-init' } } },
    ];
    await s.clients.kv.create(VIRTUAL_MACHINES, vm);

    const vmi = await vmiRunning(s.clients, s.ns, NAME);
    // The boot claim came through its attachment Pod, mounted before the start.
    const boot = vmi.status?.volumeStatus?.find((v) => v.name === 'boot');
    expect(boot?.hotplugVolume).toBeDefined();
    expect(['MountedToPod', 'Ready']).toContain(boot?.phase);
    const selector = `kubevirt.io/created-by=${vmi.metadata.uid ?? ''}`;
    const pods = await s.clients.kv.list<Pod>(PODS, { namespace: s.ns, labelSelector: selector });
    const launcher = pods.items.find((p) => p.metadata.name?.startsWith(`virt-launcher-${NAME}-`) === true);
    expect(launcher).toBeDefined();
    const serial = { podUid: launcher?.metadata.uid ?? '', vmiUid: vmi.metadata.uid ?? '' };
    const ready = await readSerial(
      { ...serial, until: new RegExp(`${MARKER}[^\\n]*agent=`), timeoutMs: 180_000 },
      s.c.dir,
    );
    // The guest mounted the ext4 of the qcow2 image as /dev/vda.
    expect(ready).toMatch(new RegExp(`${MARKER}[^\\n]* data=mounted`));
    // The empty claim got a qcow2 image from the launcher.
    expect(await firstBytes(join(dataDir, 'disk.img'), 4)).toEqual(QCOW2_MAGIC);
    const answer = await readSerial(
      { ...serial, send: 'cat /mnt/data/README', until: 'kubevirt-ts test data disk', timeoutMs: 30_000 },
      s.c.dir,
    );
    expect(answer).toContain('kubevirt-ts test data disk');
  });
});
