// The launcher end to end, with this test acting as the handler: the launcher runs as a child process with
// its own libvirt under a temp --root; a Notify server here records domain events; a Cmd client drives it.
// Guests are the e2e test guests (kernel boot, busybox initramfs) under whatever accelerator the launcher
// finds (TCG on these machines: /dev/kvm is there but KVM cannot run a Linux guest).
import { parseAttachFailure } from '../rpc/index.ts';
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import {
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GUEST_CMDLINE, MARKER } from '../../testenv/guests/guests.ts';
import { realClock } from '../kernel/clock.ts';
import type { DomainEvent, LauncherClient } from '../rpc/index.ts';
import { daemonIdentity } from '../libvirt/daemon/identity.ts';
import { runKvmProbe } from './emulation/kvm-probe.ts';
import { QEMU_IMG } from './sync/image-format.ts';
import type { NodeFacts } from '../rpc/index.ts';
import {
  CAPS_CACHE,
  domainStatus,
  kernelBootVmi,
  processesUnder,
  REPO,
  VIRT_LAUNCHER,
  type LauncherProcess,
} from './testing/harness.ts';
import { launcherSuite } from './testing/suite.ts';

const run = promisify(execFile);
const BOOT_MS = 60_000;
const UID = 'a9d5e0c4-1b2c-4d3e-8f40-5a6b7c8d9e0f';

const { launch, guests } = launcherSuite(UID);

const is =
  (status: string, reason?: string) =>
  (e: DomainEvent): boolean => {
    const s = domainStatus(e);
    return s.Status === status && (reason === undefined || s.Reason === reason);
  };

function qemuPid(root: string): number {
  const pid = processesUnder(root).find((p) =>
    readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith('/usr/bin/qemu-system'),
  );
  if (pid === undefined) throw new Error('no QEMU process under the launcher root');
  return pid;
}

async function stopAndCheck(l: LauncherProcess): Promise<void> {
  const before = processesUnder(l.root);
  expect(before.length).toBeGreaterThanOrEqual(2); // libvirtd, virtlogd (and QEMU while it runs)
  expect(await l.terminate(60_000)).toBe(0);
  for (let i = 0; i < 20 && processesUnder(l.root).length > 0; i++) await realClock.sleep(100);
  expect(processesUnder(l.root)).toEqual([]);
  for (const pid of before) expect(() => process.kill(pid, 0)).toThrow();
}

async function guestLists(c: LauncherClient): Promise<{ users: unknown; filesystems: unknown }> {
  const u = await c.call('getUsers', {});
  const f = await c.call('getFilesystems', {});
  expect([u.response?.success, f.response?.success]).toEqual([true, true]);
  return {
    users: JSON.parse(u.guestUserListResponse) as unknown,
    filesystems: JSON.parse(f.guestFilesystemsResponse) as unknown,
  };
}

describe('launcher end to end', () => {
  it('syncs a kernel-boot VMI: events, serial marker, idempotent re-sync, in-band failures, SIGTERM', async () => {
    const l = await launch({ name: 'marker' });
    expect((await l.client.ping()).success).toBe(true);
    // Only the launcher's user (and root: the handler) may reach the Cmd socket.
    expect(lstatSync(l.paths.launcherSocket).mode & 0o777).toBe(0o600);
    expect((await l.client.getDomain()).payload).toBeUndefined();
    // No domain yet: empty lists, as KubeVirt answers them.
    expect(await guestLists(l.client)).toEqual({ users: [], filesystems: [] });

    const vmi = kernelBootVmi({
      name: 'marker',
      uid: UID,
      initrd: 'initramfs.cpio.gz',
      cmdline: GUEST_CMDLINE,
    });
    expect(await l.client.syncVirtualMachine(vmi)).toEqual({ success: true, message: '' });
    await l.waitEvent((e) => e.eventType === 'ADDED', 10_000);
    await l.waitEvent(is('Running'), 10_000);
    const serial = await l.readSerial(MARKER, BOOT_MS);
    expect(serial).toContain(`${MARKER} kernel=${guests().kernelVersion} variant=plain`);
    // No agent in this guest: empty lists too.
    expect(await guestLists(l.client)).toEqual({ users: [], filesystems: [] });
    // virtlogd keeps the whole console output as well.
    const log = l.paths.serialLog(UID);
    for (let i = 0; i < 50 && !readFileSync(log, 'utf8').includes(MARKER); i++) await realClock.sleep(100);
    expect(readFileSync(log, 'utf8')).toContain(MARKER);

    const domain = (await l.client.getDomain()).payload as {
      Spec: { Name: string };
      Status: { Status: string };
    };
    expect(domain.Spec.Name).toBe('default_marker');
    expect(domain.Status.Status).toBe('Running');
    expect((await l.client.getQemuVersion()).version).toMatch(/^\d+\.\d+\.\d+$/);
    expect((await l.client.getAppliedVmiChecksum()).checksum).toMatch(/^[0-9a-f]{64}$/);

    // Sync again: nothing to do, the same QEMU keeps running.
    const pid = qemuPid(l.root);
    const seen = l.events.length;
    expect((await l.client.syncVirtualMachine({ ...vmi, status: { phase: 'Running' } })).success).toBe(true);
    expect(qemuPid(l.root)).toBe(pid);
    expect(l.events.slice(seen).some((e) => e.eventType === 'ADDED')).toBe(false);

    // A VMI the converter refuses: the field is named, the launcher keeps serving.
    const bad = structuredClone(vmi);
    bad.spec.domain.cpu = { features: [{ name: 'avx2', policy: 'sometimes' }] };
    const refused = await l.client.syncVirtualMachine(bad);
    expect(refused.success).toBe(false);
    expect(refused.message).toContain('spec.domain.cpu.features[0].policy');
    // A malformed VMI: refused before the converter, naming the field.
    const malformed = {
      ...vmi,
      spec: { ...vmi.spec, domain: { ...vmi.spec.domain, cpu: { cores: 'four' } } },
    };
    expect(await l.client.syncVirtualMachine(malformed)).toEqual({
      success: false,
      message: 'SyncVirtualMachine failed: spec.domain.cpu.cores: expected an integer, got the string "four"',
    });
    // More vCPUs than libvirt gives a q35 domain here (domain capabilities), though fewer than KubeVirt's 512.
    const wide = structuredClone(vmi);
    wide.spec.domain.cpu = { sockets: 500, cores: 1, threads: 1 };
    const tooWide = await l.client.syncVirtualMachine(wide);
    const limit =
      /^SyncVirtualMachine failed: spec\.domain\.cpu: 500 vCPUs \(500 sockets × 1 cores × 1 threads\) exceed the maximum of (\d+) \(libvirt's limit for this host\)$/.exec(
        tooWide.message,
      );
    expect({ success: tooWide.success, limited: limit !== null }).toEqual({ success: false, limited: true });
    expect(Number(limit?.[1])).toBeLessThan(500);
    expect((await l.client.ping()).success).toBe(true);

    const from = l.events.length;
    expect((await l.client.vmiCommand('pauseVirtualMachine', vmi)).success).toBe(true);
    await l.waitEvent(is('Paused', 'User'), 10_000, from);
    expect((await l.client.vmiCommand('unpauseVirtualMachine', vmi)).success).toBe(true);
    await l.waitEvent(is('Running', 'Unpaused'), 10_000, from);

    await stopAndCheck(l);
    await l.waitEvent(is('Shutoff'), 5_000, from);
  }, 180_000);

  it('reports an ACPI shutdown the guest obeys as Shutoff/Shutdown (Succeeded), and Delete', async () => {
    const l = await launch({ name: 'shutdown' });
    const vmi = kernelBootVmi({
      name: 'shutdown',
      uid: UID,
      initrd: 'initramfs.cpio.gz',
      cmdline: GUEST_CMDLINE,
    });
    expect((await l.client.syncVirtualMachine(vmi)).success).toBe(true);
    await l.readSerial(MARKER, BOOT_MS);
    const from = l.events.length;
    // The test guest's acpid powers off on the power button: no Kill needed.
    expect((await l.client.vmiCommand('shutdownVirtualMachine', vmi)).success).toBe(true);
    await l.waitEvent(is('Shutoff', 'Shutdown'), 15_000, from);
    expect(readFileSync(l.paths.serialLog(UID), 'utf8')).toContain('kvts: power button, powering off');
    expect((await l.client.vmiCommand('deleteVirtualMachine', vmi)).success).toBe(true);
    await l.waitEvent((e) => e.eventType === 'DELETED', 10_000, from);
    expect((await l.client.getDomain()).payload).toBeUndefined();
    await stopAndCheck(l);
  }, 180_000);

  it('reports a guest that powers itself off as Shutoff/Shutdown (Succeeded)', async () => {
    const l = await launch({ name: 'poweroff' });
    const cmdline = `${GUEST_CMDLINE} kvts.poweroff=1`;
    const vmi = kernelBootVmi({ name: 'poweroff', uid: UID, initrd: 'initramfs.cpio.gz', cmdline });
    expect((await l.client.syncVirtualMachine(vmi)).success).toBe(true);
    await l.waitEvent(is('Shutoff', 'Shutdown'), BOOT_MS);
    expect(readFileSync(l.paths.serialLog(UID), 'utf8')).toContain(MARKER);
    await stopAndCheck(l);
  }, 180_000);

  it('starts an EFI guest with secure boot on the firmware Deckhouse uses, its NVRAM made from the template', async () => {
    const l = await launch({ name: 'efi' });
    const vmi = kernelBootVmi({ name: 'efi', uid: UID, initrd: 'initramfs.cpio.gz', cmdline: GUEST_CMDLINE });
    const domain = vmi.spec.domain;
    domain.firmware = { uuid: domain.firmware?.uuid ?? UID, bootloader: { efi: { secureBoot: true } } };
    domain.features = { ...domain.features, smm: { enabled: true } };
    expect((await l.client.syncVirtualMachine(vmi)).success).toBe(true);
    await l.waitEvent(is('Running'), 10_000);
    // No disk to boot: the firmware's boot manager says so on the serial console.
    const deadline = Date.now() + BOOT_MS;
    while (!readFileSync(l.paths.serialLog(UID), 'utf8').includes('BdsDxe') && Date.now() < deadline)
      await realClock.sleep(500);
    expect(readFileSync(l.paths.serialLog(UID), 'utf8')).toContain('BdsDxe');
    const cmdline = readFileSync(`/proc/${qemuPid(l.root)}/cmdline`, 'utf8');
    expect(cmdline).toContain('/usr/share/OVMF/OVMF_CODE_4M.secboot.fd');
    expect(lstatSync(join(l.root, 'var/run/kubevirt-private/libvirt/qemu/nvram/efi_VARS.fd')).size).toBe(
      lstatSync('/usr/share/OVMF/OVMF_VARS_4M.fd').size,
    );
    await stopAndCheck(l);
  }, 180_000);

  it('reports kill -9 of QEMU as a crash and does not restart a VMI that already ran', async () => {
    const l = await launch({ name: 'crash' });
    const vmi = kernelBootVmi({
      name: 'crash',
      uid: UID,
      initrd: 'initramfs.cpio.gz',
      cmdline: GUEST_CMDLINE,
    });
    expect((await l.client.syncVirtualMachine(vmi)).success).toBe(true);
    await l.waitEvent(is('Running'), 10_000);
    const from = l.events.length;
    process.kill(qemuPid(l.root), 'SIGKILL');
    await l.waitEvent(is('Shutoff', 'Crashed'), 10_000, from);
    expect((await l.client.syncVirtualMachine({ ...vmi, status: { phase: 'Running' } })).success).toBe(true);
    const domain = (await l.client.getDomain()).payload as { Status: { Status: string; Reason: string } };
    expect(domain.Status).toMatchObject({ Status: 'Shutoff', Reason: 'Crashed' });
    await stopAndCheck(l);
  }, 180_000);

  it('hotplugs a PVC disk into the running domain and unplugs it again', async () => {
    const l = await launch({ name: 'hotplug' });
    const vmi = kernelBootVmi({
      name: 'hotplug',
      uid: UID,
      initrd: 'initramfs.cpio.gz',
      cmdline: GUEST_CMDLINE,
    });
    expect((await l.client.syncVirtualMachine(vmi)).success).toBe(true);
    await l.waitEvent(is('Running'), 10_000);
    // What the handler's hotplug mounter would leave: the PVC's image in the hotplug directory.
    const image = join(l.root, 'var/run/kubevirt/hotplug-disks/hp.img');
    writeFileSync(image, Buffer.alloc(0));
    truncateSync(image, 8 * 1024 * 1024);
    const id = daemonIdentity();
    chownSync(image, id.uid, id.gid);
    const plugged = structuredClone(vmi);
    plugged.spec.domain.devices.disks = [{ name: 'hp', disk: { bus: 'scsi' } }];
    plugged.spec.volumes = [
      { name: 'hp', persistentVolumeClaim: { claimName: 'hp-pvc', hotpluggable: true } },
    ];
    plugged.status = {
      phase: 'Running',
      volumeStatus: [{ name: 'hp', target: '', phase: 'Ready', hotplugVolume: { attachPodName: 'hp-pod' } }],
    };
    const pid = qemuPid(l.root);
    expect(await l.client.syncVirtualMachine(plugged)).toEqual({ success: true, message: '' });
    const blocks = async (): Promise<string[]> =>
      ((await l.client.getDomainStats()).payload as { Block: { Name: string }[] }).Block.map((b) => b.Name);
    expect(await blocks()).toContain('sda');
    expect(qemuPid(l.root)).toBe(pid);
    const spec = (await l.client.getDomain()).payload as {
      Spec: { Devices: { Disks: { Alias: { Name: string } }[] } };
    };
    expect(spec.Spec.Devices.Disks.map((d) => d.Alias.Name)).toEqual(['hp']);

    expect((await l.client.syncVirtualMachine({ ...vmi, status: { phase: 'Running' } })).success).toBe(true);
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      gone = !(await blocks()).includes('sda');
      if (!gone) await realClock.sleep(100);
    }
    expect(gone).toBe(true);
    await stopAndCheck(l);
  }, 180_000);

  it.each<[string, boolean, string]>([
    // The converter gives a domain no USB controller (model none) unless a device of its start needs one.
    ['without a USB bus', false, 'Domain has no USB bus support'],
    // With one (a USB tablet asks for qemu-xhci), libvirt looks for the device on this host, which has no USB.
    ['with a USB bus', true, "cannot open directory '/sys/bus/usb/devices'"],
  ])(
    "asks libvirt to attach a DRA USB device to the running domain %s, and passes on libvirt's refusal",
    async (_what, usbBus, refusal) => {
      const name = usbBus ? 'drausb' : 'drausb-nobus';
      const l = await launch({ name });
      const vmi = kernelBootVmi({ name, uid: UID, initrd: 'initramfs.cpio.gz', cmdline: GUEST_CMDLINE });
      if (usbBus) vmi.spec.domain.devices.inputs = [{ name: 'tablet', type: 'tablet', bus: 'usb' }];
      expect((await l.client.syncVirtualMachine(vmi)).success).toBe(true);
      await l.waitEvent(is('Running'), 10_000);
      // What the controller's hotplug leaves: the device in the spec, its allocation in the status.
      const plugged = structuredClone(vmi);
      plugged.spec.domain.devices.hostDevices = [{ name: 'token', claimName: 'usb', requestName: 'token' }];
      plugged.status = {
        phase: 'Running',
        deviceStatus: {
          hostDeviceStatuses: [
            {
              name: 'token',
              deviceResourceClaimStatus: {
                name: 'usb-1-2',
                resourceClaimName: `${name}-usb-x1y2z`,
                attributes: { usbAddress: { bus: 1, deviceNumber: 2 } },
              },
            },
          ],
        },
      };
      const pid = qemuPid(l.root);
      const refused = await l.client.syncVirtualMachine(plugged);
      expect(refused.success).toBe(false);
      // The message names the device in the form the handler reads (lib/rpc attach-failure.ts).
      expect(parseAttachFailure(refused.message)).toEqual({
        kind: 'host device',
        name: 'dra-hostdevice-token',
        cause: expect.stringContaining(refusal),
      });
      expect(qemuPid(l.root)).toBe(pid);
      const domain = (await l.client.getDomain()).payload as { Status: { Status: string } };
      expect(domain.Status.Status).toBe('Running');
      // The device taken away again: nothing was attached, so there is nothing to detach.
      expect(await l.client.syncVirtualMachine({ ...vmi, status: { phase: 'Running' } })).toEqual({
        success: true,
        message: '',
      });
      expect(qemuPid(l.root)).toBe(pid);
      await stopAndCheck(l);
    },
    180_000,
  );

  it('resizes the virtio-mem device of the running domain (memory hotplug), refusing more than maxGuest', async () => {
    const l = await launch({ name: 'memhp' });
    const vmi = kernelBootVmi({
      name: 'memhp',
      uid: UID,
      initrd: 'initramfs.cpio.gz',
      cmdline: GUEST_CMDLINE,
    });
    vmi.spec.domain.memory = { guest: '1Gi', maxGuest: '2Gi' };
    vmi.status = {
      phase: 'Running',
      memory: { guestAtBoot: '1Gi', guestCurrent: '1Gi', guestRequested: '1Gi' },
    };
    expect((await l.client.syncVirtualMachine(vmi)).success).toBe(true);
    await l.waitEvent(is('Running'), 10_000);
    const memory = async (): Promise<number | undefined> =>
      ((await l.client.getDomain()).payload as { Spec: { Memory?: { Value: number } } }).Spec.Memory?.Value;
    expect(await memory()).toBe(1024 * 1024 * 1024);

    const grown = structuredClone(vmi);
    grown.spec.domain.memory = { guest: '1152Mi', maxGuest: '2Gi' };
    const pid = qemuPid(l.root);
    expect(await l.client.vmiCommand('syncVirtualMachineMemory', grown)).toEqual({
      success: true,
      message: '',
    });
    expect((await l.client.syncVirtualMachine(grown)).success).toBe(true);
    expect(await memory()).toBe(1152 * 1024 * 1024);
    expect(qemuPid(l.root)).toBe(pid);

    const beyond = structuredClone(vmi);
    beyond.spec.domain.memory = { guest: '3Gi', maxGuest: '2Gi' };
    expect(await l.client.vmiCommand('syncVirtualMachineMemory', beyond)).toEqual({
      success: false,
      message:
        'SyncVirtualMachineMemory failed: spec.domain.memory.maxGuest: Guest memory is greater than the ' +
        'configured maxGuest memory',
    });
    await stopAndCheck(l);
  }, 180_000);

  it('makes a qcow2 image on an empty filesystem claim, and reads each claim image in its own format', async () => {
    const l = await launch({ name: 'claims' });
    const id = daemonIdentity();
    // The claim as the Pod mounts it: an empty directory (not the daemons' user's).
    mkdirSync(join(l.root, 'var/run/kubevirt-private/vmi-disks/data'), { recursive: true });
    const vmi = kernelBootVmi({
      name: 'claims',
      uid: UID,
      initrd: 'initramfs.cpio.gz',
      cmdline: GUEST_CMDLINE,
    });
    vmi.spec.domain.devices.disks = [{ name: 'data', disk: { bus: 'virtio' } }];
    vmi.spec.volumes = [{ name: 'data', persistentVolumeClaim: { claimName: 'vd-data' } }];
    const data = {
      name: 'data',
      target: '',
      persistentVolumeClaimInfo: {
        claimName: 'vd-data',
        volumeMode: 'Filesystem',
        capacity: { storage: '16Mi' },
      },
    };
    vmi.status = { volumeStatus: [data] };
    expect(await l.client.syncVirtualMachine(vmi)).toEqual({ success: true, message: '' });
    await l.waitEvent(is('Running'), 10_000);
    const made = join(l.root, 'var/run/kubevirt-private/vmi-disks/data/disk.img');
    const info = await run(QEMU_IMG, ['info', '--output=json', '-U', made]);
    expect(JSON.parse(info.stdout)).toMatchObject({ format: 'qcow2', 'virtual-size': 16 * 2 ** 20 });
    expect(lstatSync(made).uid).toBe(id.uid);

    // What the handler's hotplug mounter would leave: one image from Deckhouse's importer, one from another client.
    const hotplugDir = join(l.root, 'var/run/kubevirt/hotplug-disks');
    await run(QEMU_IMG, ['create', '-q', '-f', 'qcow2', join(hotplugDir, 'hq.img'), '8M']);
    writeFileSync(join(hotplugDir, 'hr.img'), Buffer.alloc(0));
    truncateSync(join(hotplugDir, 'hr.img'), 8 * 1024 * 1024);
    for (const f of ['hq.img', 'hr.img']) chownSync(join(hotplugDir, f), id.uid, id.gid);
    const plugged = structuredClone(vmi);
    plugged.spec.domain.devices.disks?.push(
      { name: 'hq', disk: { bus: 'scsi' } },
      { name: 'hr', disk: { bus: 'scsi' } },
    );
    plugged.spec.volumes?.push(
      { name: 'hq', persistentVolumeClaim: { claimName: 'vd-hq', hotpluggable: true } },
      { name: 'hr', persistentVolumeClaim: { claimName: 'vd-hr', hotpluggable: true } },
    );
    const mounted = { target: '', phase: 'Ready', hotplugVolume: { attachPodName: 'hp-pod' } };
    plugged.status = {
      phase: 'Running',
      volumeStatus: [data, { name: 'hq', ...mounted }, { name: 'hr', ...mounted }],
    };
    expect(await l.client.syncVirtualMachine(plugged)).toEqual({ success: true, message: '' });
    const spec = (await l.client.getDomain()).payload as {
      Spec: { Devices: { Disks: { Alias: { Name: string }; Driver: { Type: string } }[] } };
    };
    expect(spec.Spec.Devices.Disks.map((d) => `${d.Alias.Name}:${d.Driver.Type}`)).toEqual([
      'data:qcow2',
      'hq:qcow2',
      'hr:raw',
    ]);
    const blocks = ((await l.client.getDomainStats()).payload as { Block: { Name: string }[] }).Block;
    expect(blocks.map((b) => b.Name).sort()).toEqual(['sda', 'sdb', 'vda']);
    await stopAndCheck(l);
  }, 180_000);

  it('freezes and thaws the agent guest, and thaws by itself after the unfreeze timeout', async () => {
    const l = await launch({ name: 'agent', agent: true });
    const vmi = kernelBootVmi({
      name: 'agent',
      uid: UID,
      initrd: 'initramfs-agent.cpio.gz',
      cmdline: GUEST_CMDLINE,
      dataDisk: true,
    });
    const sync = await l.client.syncVirtualMachine(vmi, { DisksInfo: { data: { format: 'qcow2' } } });
    expect(sync).toEqual({ success: true, message: '' });
    expect(await l.readSerial('agent=', BOOT_MS)).toContain('data=mounted agent=started');
    const status = async (): Promise<string> =>
      ((await l.client.getGuestInfo()).payload as { fsFreezeStatus: string }).fsFreezeStatus;
    const info = (await l.client.getGuestInfo()).payload as { guestAgentVersion: string; fsInfo: unknown };
    expect(info.guestAgentVersion).not.toBe('');
    expect(await status()).toBe('thawed');

    expect((await l.client.freezeVirtualMachine(vmi, 0)).success).toBe(true);
    expect(await status()).toBe('frozen');
    expect((await l.client.vmiCommand('unfreezeVirtualMachine', vmi)).success).toBe(true);
    expect(await status()).toBe('thawed');

    expect((await l.client.freezeVirtualMachine(vmi, 2)).success).toBe(true);
    expect(await status()).toBe('frozen');
    let thawed = false;
    for (let i = 0; i < 100 && !thawed; i++) {
      await realClock.sleep(100);
      thawed = (await status()) === 'thawed';
    }
    expect(thawed).toBe(true);

    // The guest mounts only its ext4 data disk (the root is the initramfs) and no one logs in.
    const lists = await guestLists(l.client);
    expect(lists.users).toEqual([]);
    const [data, ...others] = lists.filesystems as { usedBytes: number; totalBytes: number }[];
    expect(others).toEqual([]);
    expect(data).toEqual({
      diskName: 'vda',
      mountPoint: '/mnt/data',
      fileSystemType: 'ext4',
      usedBytes: expect.any(Number),
      totalBytes: expect.any(Number),
      disk: [{ busType: 'virtio' }],
    });
    // The 16 MiB data disk, less ext4's own overhead.
    expect(data?.totalBytes).toBeGreaterThan(8 * 1024 * 1024);
    expect(data?.totalBytes).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(data?.usedBytes).toBeLessThan(data?.totalBytes ?? 0);

    const stats = (await l.client.getDomainStats()).payload as { Name: string; Block: { Name: string }[] };
    expect(stats.Name).toBe('default_agent');
    expect(stats.Block.map((b) => b.Name)).toContain('vda');
    await stopAndCheck(l);
  }, 180_000);
});

describe('virt launcher node-labeller', () => {
  it('writes the host facts and labels for the accelerator it finds', async () => {
    const out = mkdtempSync(join(tmpdir(), 'kv-node-labeller-'));
    try {
      const args = [...VIRT_LAUNCHER, 'node-labeller', '--output', out, '--qemu-caps-cache', CAPS_CACHE];
      await run(process.execPath, args, { cwd: REPO });
      const facts = JSON.parse(readFileSync(join(out, 'host-facts.json'), 'utf8')) as NodeFacts;
      const labels = JSON.parse(readFileSync(join(out, 'node-labels.json'), 'utf8')) as Record<
        string,
        string
      >;
      expect(facts.virtType).toBe(facts.emulation ? 'qemu' : 'kvm');
      expect(facts.cpuModels.length).toBeGreaterThan(0);
      for (const m of facts.cpuModels) expect(labels[`cpu-model.node.kubevirt.io/${m}`]).toBe('true');
      expect(labels['machine-type.node.kubevirt.io/q35']).toBe('true');
      expect(readFileSync(join(out, 'domcapabilities.xml'), 'utf8')).toContain(
        `<domain>${facts.virtType}</domain>`,
      );
      expect(readFileSync(join(out, 'capabilities.xml'), 'utf8')).toContain('<capabilities>');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('KVM probe guest', () => {
  it('runs to its end under TCG (so a failure under KVM means KVM, not the probe)', async () => {
    const r = await runKvmProbe({ qemu: '/usr/bin/qemu-system-x86_64', accel: 'tcg' });
    expect(r).toMatchObject({ ok: true, reason: 'ok' });
  }, 30_000);
});
