/**
 * A Windows-shaped VM as Deckhouse builds it, on the real local cluster: EFI with secure boot (SMM), `tpm: {}`,
 * a sysprep CD-ROM from a Secret and the Hyper-V enlightenments this node can run under emulation (the VP index,
 * and what needs it, want KVM: the converter refuses them under TCG). There is no Windows here: the test checks
 * what the launcher Pod gives the guest. The firmware (OVMF from the image) runs and reaches its boot manager on
 * the serial console; swtpm runs inside the launcher Pod beside QEMU; the sysprep ISO in the Pod is the
 * `unattendCD` volume holding the Secret's answer file.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync, readlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachine,
  type VirtualMachineInstance,
} from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import { CONFIG_MAPS, PODS } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { pidsWhere } from './testing/procs.ts';
import { virtSuite } from './testing/suite.ts';
import { readSerial } from './virt.ts';

const s = virtSuite('windows-vm', { handler: true });
const NAME = 'win';
const SECRETS = { ...CONFIG_MAPS, resource: 'secrets', kind: 'Secret' };
/** ISO 9660: the primary volume descriptor at 32 KiB holds the volume id at bytes 40–71. */
const VOLUME_ID_OFFSET = 32768 + 40;

function windowsVm(): VirtualMachine {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: { name: NAME, namespace: s.ns },
    spec: {
      runStrategy: 'Always',
      template: {
        metadata: { labels: { vm: NAME } },
        spec: {
          domain: {
            memory: { guest: '256Mi' },
            resources: { requests: { memory: '256Mi' } },
            machine: { type: 'q35' },
            firmware: { bootloader: { efi: { secureBoot: true } } },
            features: {
              acpi: {},
              apic: {},
              smm: { enabled: true },
              hyperv: {
                relaxed: {},
                vapic: {},
                spinlocks: { spinlocks: 8191 },
                runtime: {},
                reset: {},
                frequencies: {},
              },
            },
            clock: { timer: { hpet: { present: false }, rtc: { tickPolicy: 'catchup' } } },
            devices: {
              autoattachPodInterface: false,
              tpm: {},
              disks: [{ name: 'sysprep', cdrom: { bus: 'sata' } }],
            },
          },
          volumes: [{ name: 'sysprep', sysprep: { secret: { name: 'win-sysprep' } } }],
        },
      },
    },
  };
}

async function volumeId(file: string): Promise<string> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(32);
    await fh.read(buf, 0, 32, VOLUME_ID_OFFSET);
    return buf.toString('latin1').trim();
  } finally {
    await fh.close();
  }
}

describe('a Windows-shaped VM as Deckhouse builds it', () => {
  it('boots its EFI firmware with a TPM from swtpm in the launcher Pod and a sysprep CD-ROM', async () => {
    await s.clients.direct.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'win-sysprep', namespace: s.ns },
      stringData: { 'Autounattend.xml': '<unattend xmlns="urn:schemas-microsoft-com:unattend"/>\n' },
    });
    await s.clients.kv.create(VIRTUAL_MACHINES, windowsVm());
    const vmi = await waitFor(
      async () => {
        const v = await s.clients.kv
          .get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, NAME, { namespace: s.ns })
          .catch(() => undefined);
        return v?.status?.phase === 'Running' && v;
      },
      'the VMI Running',
      { timeoutMs: 240_000, intervalMs: 500 },
    );
    const uid = vmi.metadata.uid ?? '';
    const pods = await s.clients.kv.list<Pod>(PODS, {
      namespace: s.ns,
      labelSelector: `kubevirt.io/created-by=${uid}`,
    });
    const podUid = pods.items[0]?.metadata.uid ?? '';
    const boot = await readSerial({ podUid, vmiUid: uid, until: 'BdsDxe', timeoutMs: 180_000 }, s.c.dir);
    expect(boot).toContain('BdsDxe');

    // QEMU of this VMI, and swtpm in the same mount namespace (the launcher Pod's).
    const [qemu] = pidsWhere(
      (argv) =>
        argv[0]?.includes('qemu-system') === true && argv.some((a) => a.startsWith(`guest=${s.ns}_${NAME}`)),
    );
    expect(qemu).toBeDefined();
    const mntOf = (pid: number): string => readlinkSync(`/proc/${pid}/ns/mnt`);
    const qemuArgs = readFileSync(`/proc/${qemu ?? 0}/cmdline`, 'utf8').split('\0');
    expect(qemuArgs.join(' ')).toMatch(/-tpmdev emulator/);
    expect(qemuArgs.join(' ')).toContain('OVMF_CODE_4M.secboot.fd');
    const swtpm = pidsWhere((argv) => argv[0]?.endsWith('swtpm') === true && argv[1] === 'socket').filter(
      (pid) => mntOf(pid) === mntOf(qemu ?? 0),
    );
    expect(swtpm).toHaveLength(1);

    // The sysprep ISO QEMU reads (its file as QEMU names it, seen through QEMU's root): the unattendCD volume.
    const isoFile = /"filename":"([^"]*sysprep[^"]*)"/.exec(qemuArgs.join(' '))?.[1];
    expect(isoFile).toMatch(/sysprep\.iso$/);
    // /var/run is an absolute symlink to /run in the image, which /proc/<pid>/root would resolve against ours.
    const inPod = (isoFile ?? '').replace(/^\/var\/run\//, '/run/');
    expect(await volumeId(`/proc/${qemu ?? 0}/root${inPod}`)).toBe('unattendCD');
  });
});
