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
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachine,
  type VirtualMachineInstance,
} from '../../lib/kubevirt/index.ts';
import type { Pod } from '../../lib/kubevirt/core/pod.ts';
import type { PersistentVolume } from '../../lib/kubevirt/core/pv.ts';
import type { PersistentVolumeClaim } from '../../lib/kubevirt/core/pvc.ts';
import {
  CONFIG_MAPS,
  PERSISTENT_VOLUME_CLAIMS,
  PERSISTENT_VOLUMES,
  PODS,
} from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { pidsWhere } from './testing/procs.ts';
import { virtSuite } from './testing/suite.ts';
import { readSerial, vmiRunning } from './virt.ts';

const s = virtSuite('windows-vm', { handler: true });
const NAME = 'win';
const SECRETS = { ...CONFIG_MAPS, resource: 'secrets', kind: 'Secret' };
/** ISO 9660: the primary volume descriptor at 32 KiB holds the volume id at bytes 40–71. */
const VOLUME_ID_OFFSET = 32768 + 40;

function windowsVm(name = NAME): VirtualMachine {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: { name, namespace: s.ns },
    spec: {
      runStrategy: 'Always',
      template: {
        metadata: { labels: { vm: name } },
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
    const vmi = await vmiRunning(s.clients, s.ns, NAME);
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

  it('keeps a persistent TPM and EFI variable store on its backend-storage claim across a restart', async () => {
    const name = 'win-persistent';
    const vm = windowsVm(name);
    const domain = vm.spec.template.spec.domain;
    domain.devices.tpm = { persistent: true };
    domain.firmware = { bootloader: { efi: { secureBoot: true, persistent: true } } };
    await s.clients.kv.create(VIRTUAL_MACHINES, vm);
    const running = (): Promise<VirtualMachineInstance> => vmiRunning(s.clients, s.ns, name);
    const first = await running();
    // The claim KubeVirt names after the VM, Bound to a local volume: its directory on the node.
    const claim = await s.clients.direct.get<PersistentVolumeClaim>(
      PERSISTENT_VOLUME_CLAIMS,
      `persistent-state-for-${name}`,
      { namespace: s.ns },
    );
    expect(claim.metadata.labels?.['persistent-state-for']).toBe(name);
    const pv = await s.clients.direct.get<PersistentVolume>(PERSISTENT_VOLUMES, claim.spec?.volumeName ?? '');
    const dir = pv.spec?.hostPath?.path ?? '';
    const nvram = join(dir, 'nvram', `${name}_VARS.fd`);
    const tpmState = async (): Promise<string[]> => (await readdir(join(dir, 'swtpm'))).sort();
    const firstNvram = await waitFor(
      () => stat(nvram).catch(() => false as const),
      'the NVRAM on the claim',
      {
        timeoutMs: 30_000,
      },
    );
    const firstTpm = await tpmState();
    expect(firstTpm.length).toBeGreaterThan(0);

    // Stopped and started again: a new launcher Pod, the same state on the claim.
    await s.clients.kv.patch(
      VIRTUAL_MACHINES,
      name,
      { spec: { runStrategy: 'Halted' } },
      { namespace: s.ns, type: 'merge' },
    );
    await waitFor(
      () =>
        s.clients.kv.get(VIRTUAL_MACHINE_INSTANCES, name, { namespace: s.ns }).then(
          () => false,
          () => true,
        ),
      'the VMI gone',
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    await s.clients.kv.patch(
      VIRTUAL_MACHINES,
      name,
      { spec: { runStrategy: 'Always' } },
      { namespace: s.ns, type: 'merge' },
    );
    const second = await running();
    expect(second.metadata.uid).not.toBe(first.metadata.uid);
    const pods = await s.clients.kv.list<Pod>(PODS, {
      namespace: s.ns,
      labelSelector: `kubevirt.io/created-by=${second.metadata.uid ?? ''}`,
    });
    const podUid = pods.items[0]?.metadata.uid ?? '';
    await readSerial(
      { podUid, vmiUid: second.metadata.uid ?? '', until: 'BdsDxe', timeoutMs: 180_000 },
      s.c.dir,
    );
    // The variable store was not made again from the template (that would be a new file), and the TPM's
    // state directory is the one the first run made.
    expect((await stat(nvram)).ino).toBe(firstNvram.ino);
    expect(await tpmState()).toEqual(firstTpm);
  });
});
