// Configuration ISOs end to end: a launcher (child process, private libvirt, TCG) syncs a kernel-boot VMI
// with a cloudInitNoCloud and a configMap volume whose files sit where the Pod would mount them; the ISOs
// are written before the domain starts, hold exactly the expected files under the right volume id, and
// QEMU has them open.
import { describe, expect, it } from '@jest/globals';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { GUEST_CMDLINE, MARKER } from '../../../testenv/guests/guests.ts';
import { daemonIdentity } from '../../libvirt/daemon/identity.ts';
import { domainStatus, kernelBootVmi } from '../testing/harness.ts';
import { launcherSuite } from '../testing/suite.ts';
import { isoContents, isoVolumeId, mountConfigMap } from './testing/fs.ts';

const UID = '0c6f3d52-8a41-4e7b-9d1f-2b3c4d5e6f70';
const { launch } = launcherSuite(UID);

describe('configuration disks', () => {
  it('writes the cloud-init and configMap ISOs before the domain starts, and attaches them', async () => {
    const l = await launch({ name: 'config' });
    const vmi = kernelBootVmi({
      name: 'config',
      uid: UID,
      initrd: 'initramfs.cpio.gz',
      cmdline: GUEST_CMDLINE,
    });
    vmi.spec.domain.devices.disks = [
      { name: 'cloudinit', cdrom: { bus: 'sata' } },
      { name: 'cfg', disk: { bus: 'virtio' } },
    ];
    const userData = '#cloud-config\nhostname: from-cloud-init\n';
    vmi.spec.volumes = [
      { name: 'cloudinit', cloudInitNoCloud: { userData, networkData: 'version: 2\n' } },
      { name: 'cfg', configMap: { name: 'app-config' } },
    ];
    mountConfigMap(join(l.root, 'var/run/kubevirt-private/config-map/cfg'), {
      'app.properties': 'color=blue\n',
      'motd.txt': 'hello\n',
    });

    // Bad user data: the field is named, nothing is defined, the launcher keeps serving.
    const bad = structuredClone(vmi);
    bad.spec.volumes = [
      { name: 'cloudinit', cloudInitNoCloud: { userDataBase64: 'not base64!' } },
      { name: 'cfg', configMap: { name: 'app-config' } },
    ];
    const refused = await l.client.syncVirtualMachine(bad);
    expect(refused.success).toBe(false);
    expect(refused.message).toContain('spec.volumes[0].cloudInitNoCloud.userDataBase64: is not valid base64');
    expect((await l.client.getDomain()).payload).toBeUndefined();

    expect(await l.client.syncVirtualMachine(vmi)).toEqual({ success: true, message: '' });
    await l.waitEvent((e) => domainStatus(e).Status === 'Running', 10_000);
    const noCloud = join(
      l.root,
      'var/run/kubevirt-ephemeral-disks/cloud-init-data/default/config/noCloud.iso',
    );
    const cfg = join(l.root, 'var/run/kubevirt-private/config-map-disks/cfg.iso');
    expect(await isoVolumeId(noCloud)).toBe('cidata');
    expect(await isoContents(noCloud)).toEqual({
      'user-data': userData,
      'meta-data': JSON.stringify({ 'instance-id': UID, 'local-hostname': 'config' }),
      'network-config': 'version: 2\n',
    });
    expect(await isoVolumeId(cfg)).toBe('cfgdata');
    expect(await isoContents(cfg)).toEqual({ 'app.properties': 'color=blue\n', 'motd.txt': 'hello\n' });
    const id = daemonIdentity();
    for (const iso of [noCloud, cfg]) expect(statSync(iso)).toMatchObject({ uid: id.uid, gid: id.gid });

    const domain = (await l.client.getDomain()).payload as {
      Spec: { Devices: { Disks: { Device: string; Source: { File?: string }; Alias: { Name: string } }[] } };
    };
    const disks = domain.Spec.Devices.Disks.map((d) => [d.Alias.Name, d.Device, d.Source.File]);
    expect(disks).toEqual([
      ['cloudinit', 'cdrom', noCloud],
      ['cfg', 'disk', cfg],
    ]);
    // QEMU really has them open.
    const stats = (await l.client.getDomainStats()).payload as { Block: { Path: string }[] };
    expect(stats.Block.map((b) => b.Path).sort()).toEqual([cfg, noCloud].sort());
    await l.readSerial(MARKER, 60_000);
    expect(await l.terminate(60_000)).toBe(0);
  }, 180_000);
});
