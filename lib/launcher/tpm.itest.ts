// A VMI with `tpm: {}` (as Deckhouse asks for Windows) through the real launcher, this test acting as the
// handler: libvirt starts swtpm as the daemons' user with its state and log under the launcher's root, QEMU
// gets the emulator-backed TIS device and boots the guest, and swtpm ends with the launcher. The guest's own
// view is not checked: the test guests' kernel-boot path leaves the guest without ACPI tables, through which a
// TPM is found.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GUEST_CMDLINE, MARKER } from '../../testenv/guests/guests.ts';
import { realClock } from '../kernel/clock.ts';
import { daemonIdentity } from '../libvirt/daemon/identity.ts';
import { libvirtLayout } from '../libvirt/daemon/layout.ts';
import { getDomainXml, LibvirtConnection, lookupDomainByName } from '../libvirt/index.ts';
import type { DomainEvent } from '../rpc/index.ts';
import { child, children, parseXml } from './xml-read.ts';
import { domainStatus, kernelBootVmi, processesUnder } from './testing/harness.ts';
import { launcherSuite } from './testing/suite.ts';

const UID = '7d1e2f30-4a5b-4c6d-8e7f-90a1b2c3d4e5';
const BOOT_MS = 90_000;

const { launch } = launcherSuite(UID);

const argvOf = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
const uidOf = (pid: number): number => statSync(`/proc/${pid}`).uid;

function processNamed(root: string, bin: string): number[] {
  return processesUnder(root).filter((pid) => argvOf(pid)[0]?.endsWith(bin) === true);
}

async function liveXml(root: string, name: string): Promise<string> {
  const layout = libvirtLayout(root);
  const conn = await LibvirtConnection.open({ socketPath: layout.socketPath, uri: 'qemu:///session' });
  try {
    return await getDomainXml(conn, await lookupDomainByName(conn, name));
  } finally {
    await conn.close();
  }
}

const running = (e: DomainEvent): boolean => domainStatus(e).Status === 'Running';

describe('a VMI with a TPM', () => {
  it('runs with swtpm behind QEMU, its state under the launcher root, and stops with it', async () => {
    const l = await launch({ name: 'tpm' });
    const vmi = kernelBootVmi({
      name: 'tpm',
      uid: UID,
      initrd: 'initramfs.cpio.gz',
      cmdline: GUEST_CMDLINE,
    });
    vmi.spec.domain.devices.tpm = {};
    expect(await l.client.syncVirtualMachine(vmi)).toEqual({ success: true, message: '' });
    await l.waitEvent(running, 30_000);
    await l.readSerial(MARKER, BOOT_MS);

    // swtpm: one, as the daemons' user, a TPM 2.0 that ends when QEMU's control connection does.
    const [swtpm, ...more] = processNamed(l.root, '/swtpm');
    expect(swtpm).toBeDefined();
    expect(more).toEqual([]);
    const argv = argvOf(swtpm ?? 0);
    expect(argv).toEqual(expect.arrayContaining(['socket', '--tpm2', '--terminate']));
    expect(uidOf(swtpm ?? 0)).toBe(daemonIdentity().uid);

    // Its state and log live in the launcher's directories (the Pod's), nowhere on the host.
    const layout = libvirtLayout(l.root);
    const state = join(layout.swtpmStorageDir, UID, 'tpm2');
    expect(readdirSync(state)).toContain('tpm2-00.permall');
    expect(argv.join(' ')).toContain(state);
    expect(argv.join(' ')).toContain(`path=${layout.swtpmRunDir}/`);
    expect(existsSync(join(layout.swtpmLogDir, 'default_tpm-swtpm.log'))).toBe(true);
    // swtpm_setup's local CA, which signed the TPM's EK certificate.
    expect(readdirSync(layout.swtpmLocalCaDir)).toContain('swtpm-localca-rootca-cert.pem');
    expect(existsSync(`/var/lib/libvirt/swtpm/${UID}`)).toBe(false);

    // QEMU has the emulator-backed TIS device, libvirt's live definition says so.
    const [qemu] = processNamed(l.root, '/qemu-system-x86_64');
    const qemuArgs = argvOf(qemu ?? 0).join(' ');
    expect(qemuArgs).toMatch(/-tpmdev (\{"id":"tpm-tpm0","type":"emulator"|emulator,id=tpm-tpm0)/);
    expect(qemuArgs).toMatch(/-device (\{"driver":"tpm-tis"|tpm-tis,)/);
    const tpm = children(child(parseXml(await liveXml(l.root, 'default_tpm')), 'devices'), 'tpm');
    expect(tpm.map((t) => t.attrs['model'])).toEqual(['tpm-tis']);
    expect(child(tpm[0], 'backend')?.attrs).toMatchObject({ type: 'emulator', version: '2.0' });

    // SIGTERM: the guest is shut down, and swtpm goes with QEMU.
    expect(await l.terminate(60_000)).toBe(0);
    for (let i = 0; i < 50 && processesUnder(l.root).length > 0; i++) await realClock.sleep(100);
    expect(processesUnder(l.root)).toEqual([]);
    expect(() => process.kill(swtpm ?? 0, 0)).toThrow();
  }, 240_000);
});
