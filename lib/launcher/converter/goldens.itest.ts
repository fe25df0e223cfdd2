/**
 * Every converter golden (testdata/*.domain.xml, as golden.test.ts checks them) proven by libvirt: defined
 * (not started) in a private libvirtd through our client with libvirt's schema validation, read back,
 * compared, undefined (testing/define-in-libvirt.ts). A golden libvirt refuses fails with libvirt's message.
 *
 * What libvirt 9.0 checks at define, pinned below: the schema, the emulator binary, the virt type, the machine
 * type, rules such as secure boot needing SMM, virtiofs needing shared memory, a USB host device needing a USB
 * controller or a vGPU display needing a graphics device. Not checked until start: disk images, the OVMF loader
 * and NVRAM template, sockets (virtiofsd's too), hugepages, CPU models and features, and the host devices
 * passed through (PCI function, mediated device, USB device). So the goldens' paths need not exist on this host,
 * nor its hugepages or devices: no such guest is started here.
 *
 * Where KVM does not work, libvirt refuses type='kvm' ("Emulator ... does not support virt type 'kvm'"); a kvm
 * golden is then defined as type='qemu', nothing else changed, and a warning names the golden and libvirt's
 * refusal. Every kvm golden is also defined as type='qemu' here, as a host without KVM would get it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../kernel/log/log.ts';
import { isLibvirtError, lookupDomainByName, VIR_ERR } from '../../libvirt/index.ts';
import { child, children, parseXml } from '../xml-read.ts';
import {
  asTcgDomain,
  defineAndUndefine,
  startDefineLibvirt,
  type DefineLibvirt,
} from './testing/define-in-libvirt.ts';
import { missingFromReadBack } from './testing/read-back.ts';

const log = createLogger({ component: 'goldens-itest' });
const TESTDATA = fileURLToPath(new URL('./testdata/', import.meta.url));
const GOLDENS = readdirSync(TESTDATA)
  .filter((f) => f.endsWith('.domain.xml'))
  .sort();
const golden = (file: string): string => readFileSync(`${TESTDATA}${file}`, 'utf8');
const KVM_GOLDENS = GOLDENS.filter((f) => parseXml(golden(f)).attrs['type'] === 'kvm');

/** What libvirt 9.0 rewrites on purpose when it stores a definition: lines of ours it does not keep as given. */
const REWRITTEN: readonly (readonly [RegExp, string])[] = [
  [/^\/domain@xmlns:qemu=/, 'a namespace declaration no element uses is dropped'],
  [
    /^\/domain\/(memory|maxMemory)(@unit=b| = \d+)$/,
    'memory comes back in KiB (the amount is compared below)',
  ],
  [
    /^\/domain\/os\/type@machine=q35$/,
    'the alias q35 comes back as the machine it stands for (compared below)',
  ],
  [/^\/domain\/sysinfo\/\w+\/entry\[\w+\](@name=\w+)?$/, 'an SMBIOS entry with an empty value is dropped'],
  [/^\/domain\/devices\/console@type=pty$/, 'the console is made to follow the first serial port'],
  [/^\/domain\/devices\/disk\[[\w-]+\]\/target@tray=closed$/, 'the default tray state is left out'],
];

/** Lines of ours libvirt rewrites for this domain: an empty CD-ROM (type='block', no source) becomes a file disk. */
function rewrittenHere(xml: string): Set<string> {
  const disks = children(child(parseXml(xml), 'devices'), 'disk');
  const empty = disks.filter((d) => d.attrs['device'] === 'cdrom' && child(d, 'source') === undefined);
  return new Set(
    empty.map((d) => `/domain/devices/disk[${child(d, 'alias')?.attrs['name'] ?? ''}]@type=block`),
  );
}

let libvirt: DefineLibvirt;
const definedAsQemu: string[] = [];

beforeAll(async () => {
  libvirt = await startDefineLibvirt({ log });
}, 120_000);

afterAll(async () => {
  log.info('converter goldens defined in libvirt', { goldens: GOLDENS.length, definedAsQemu });
  await libvirt.stop();
}, 60_000);

const memoryBytes = (xml: string, element = 'memory'): number => {
  const m = child(parseXml(xml), element);
  const unit = { b: 1, KiB: 1024 }[m?.attrs['unit'] ?? ''];
  return unit === undefined ? NaN : Number(m?.text) * unit;
};
/** The virtio-mem device's size in bytes (0 without one): libvirt counts it into `<memory>`. */
const virtioMemBytes = (xml: string): number => {
  const size = child(parseXml(xml), 'devices/memory/target/size');
  return size === undefined ? 0 : Number(size.text) * ({ b: 1, KiB: 1024 }[size.attrs['unit'] ?? ''] ?? NaN);
};
const machineOf = (xml: string): string | undefined => child(parseXml(xml), 'os/type')?.attrs['machine'];

async function isGone(name: string): Promise<boolean> {
  try {
    await lookupDomainByName(libvirt.conn, name);
    return false;
  } catch (err) {
    if (isLibvirtError(err, VIR_ERR.NO_DOMAIN)) return true;
    throw err;
  }
}

describe('the converter goldens in libvirt 9.0', () => {
  it('are the goldens golden.test.ts converts, the areas at risk among them', () => {
    expect(GOLDENS).toEqual(
      expect.arrayContaining([
        'efi-secureboot.domain.xml',
        'hyperv.domain.xml',
        'custom-cpu.domain.xml',
        'scsi-lun-reservation.domain.xml',
        'persistent-volumes.domain.xml',
        'kernel-boot-tcg.domain.xml',
        'containerdisk-cloudinit.domain.xml',
        'windows-tpm.domain.xml',
        'hugepages-1gi.domain.xml',
        'hugepages-2mi-no-memfd.domain.xml',
        'virtiofs.domain.xml',
        'dra-pci-hostdevice.domain.xml',
        'dra-mdev-gpu.domain.xml',
        'dra-usb-hostdevice.domain.xml',
      ]),
    );
  });

  it.each(GOLDENS)('%s is defined, read back as given and undefined', async (file) => {
    const xml = golden(file);
    const r = await defineAndUndefine(libvirt.conn, xml);
    if (r.kvmRefused !== undefined) {
      definedAsQemu.push(file);
      log.warning("golden defined as type='qemu': libvirt refused type='kvm' for that reason alone", {
        golden: file,
        libvirt: r.kvmRefused,
      });
    }
    const here = rewrittenHere(xml);
    const unexpected = missingFromReadBack(r.defined, r.readBack).filter(
      (line) => !here.has(line) && !REWRITTEN.some(([re]) => re.test(line)),
    );
    expect(unexpected).toEqual([]);
    // libvirt 9.0 stores as `<memory>` the NUMA cells' memory plus every memory device's size.
    expect(memoryBytes(r.readBack)).toBe(memoryBytes(xml) + virtioMemBytes(xml));
    // NaN on both sides for a golden without memory hotplug.
    expect(memoryBytes(r.readBack, 'maxMemory')).toBe(memoryBytes(xml, 'maxMemory'));
    const machine = machineOf(xml);
    expect(machineOf(r.readBack)).toEqual(machine === 'q35' ? expect.stringMatching(/^pc-q35-\d/) : machine);
    expect(await isGone(child(parseXml(xml), 'name')?.text ?? '')).toBe(true);
  });

  it.each(KVM_GOLDENS)("%s is defined as type='qemu' too (a host without KVM)", async (file) => {
    const r = await defineAndUndefine(libvirt.conn, asTcgDomain(golden(file)), { tcgWhenKvmRefused: false });
    expect(parseXml(r.readBack).attrs['type']).toBe('qemu');
  });
});

describe('what libvirt 9.0 checks when a domain is defined', () => {
  const efi = golden('efi-secureboot.domain.xml');
  const hotplug = golden('deckhouse-hotplug.domain.xml');
  const pci = golden('dra-pci-hostdevice.domain.xml');
  const mdev = golden('dra-mdev-gpu.domain.xml');
  const usb = golden('dra-usb-hostdevice.domain.xml');
  const requested = (kib: number): string =>
    hotplug.replace(
      '<requested unit="KiB">0</requested>',
      `<requested unit="KiB">${String(kib)}</requested>`,
    );
  it.each([
    ['secure boot without SMM', efi.replace('<smm/>', ''), 'Secure boot requires SMM feature enabled'],
    [
      'a machine type QEMU lacks',
      efi.replace('machine="q35"', 'machine="pc-q35-99.0"'),
      "does not support machine type 'pc-q35-99.0'",
    ],
    [
      'an emulator that is not there',
      efi.replace('<devices>', '<devices>\n    <emulator>/usr/bin/no-such-qemu</emulator>'),
      'Cannot check QEMU binary /usr/bin/no-such-qemu',
    ],
    ['a virt type QEMU lacks', efi.replace('type="kvm"', 'type="xen"'), "does not support virt type 'xen'"],
    [
      'an attribute outside the schema',
      efi.replace('<cpu mode="host-model">', '<cpu mode="host-model" speed="fast">'),
      'XML document failed to validate against schema',
    ],
    [
      'virtiofs without shared memory',
      golden('virtiofs.domain.xml').replace('<access mode="shared"/>', ''),
      "'virtiofs' requires shared memory",
    ],
    [
      "KubeVirt's accessMode spelling of a filesystem's accessmode",
      golden('virtiofs.domain.xml').replaceAll('accessmode=', 'accessMode='),
      'XML document failed to validate against schema',
    ],
    [
      'a virtio-mem device asked for more than its size',
      requested(266338304 + 2048),
      'requested size must be smaller than or equal to @size (266338304KiB)',
    ],
    [
      'a virtio-mem device asked for part of a block',
      requested(1024),
      'requested size must be an integer multiple of block size',
    ],
    [
      "KubeVirt's type attribute on a hostdev's PCI source address",
      pci.replace('<address domain="0x0000" bus="0x3b"', '<address type="pci" domain="0x0000" bus="0x3b"'),
      'XML document failed to validate against schema',
    ],
    [
      'a USB host device without a USB controller',
      usb.replace('model="qemu-xhci"', 'model="none"'),
      "Can't add host USB device: USB is disabled in this host",
    ],
    [
      'a vGPU display without a graphics device (autoattachGraphicsDevice: false)',
      mdev.replace(/<graphics type="vnc">[\s\S]*?<\/graphics>/, ''),
      "graphics device is needed for attribute value 'display=on' in <hostdev>",
    ],
  ])("refuses %s, and the test fails with libvirt's message", async (_what, xml, message) => {
    await expect(defineAndUndefine(libvirt.conn, xml)).rejects.toThrow(message);
  });

  it.each([
    ['a PCI device this host does not have', pci.replace('bus="0x3b"', 'bus="0xfe"')],
    ['a mediated device this host does not have', mdev],
    ['a USB device this host does not have', usb],
    ['an OVMF loader that is not there', efi.replace('OVMF_CODE_4M.secboot.fd', 'NO_SUCH_CODE.fd')],
    ['an NVRAM template that is not there', efi.replace('OVMF_VARS_4M.fd', 'NO_SUCH_VARS.fd')],
    [
      'a CPU model QEMU does not know',
      golden('custom-cpu.domain.xml').replace('Cascadelake-Server-noTSX', 'NoSuchModel'),
    ],
    ['a disk image that is not there', efi.replace('/system/disk.img', '/system/no-such.img')],
    // This host has no hugepages reserved and no hugetlbfs in the daemon's qemu.conf.
    ['hugepages the host has none of', golden('hugepages-1gi.domain.xml')],
    ['a virtiofs socket that is not there', golden('virtiofs.domain.xml')],
    ['a virtio-mem device asked to hold memory (the definition after a hotplug)', requested(1048576)],
  ])('accepts %s (checked only at start)', async (_what, xml) => {
    await expect(defineAndUndefine(libvirt.conn, xml)).resolves.toMatchObject({ defined: xml });
  });
});
