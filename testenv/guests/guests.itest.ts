// Boots the test guests with qemu-system-x86_64 under TCG (no libvirt): the plain guest must print the
// marker (and power off on kvts.poweroff=1 or on the ACPI power button); the agent guest must answer the guest agent on its
// virtio-serial socket and freeze/thaw its ext4 data disk. Without a NIC neither prints the NET line.
// Prints the QEMU-start-to-marker times.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureGuests, GUEST_CMDLINE, MARKER, NET_MARKER } from './guests.ts';
import type { Guests } from './guests.ts';
import { GuestAgentClient } from './qga-client.ts';
import { agentDeviceArgs, QemuGuest } from './qemu-direct.ts';
import { qmpExecute } from './qmp.ts';

const BOOT_TIMEOUT_MS = 60_000;
const POWER_BUTTON_TIMEOUT_MS = 15_000;

/** Resolves QEMU's exit code, or 'timeout' if it has not exited after ms. */
function exitWithin(vm: QemuGuest, ms: number): Promise<number | null | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(resolve, ms, 'timeout')));
  return Promise.race([vm.exited, timeout]).finally(() => {
    clearTimeout(timer);
  });
}

describe('test guests under TCG', () => {
  let guests: Guests;
  let tmp: string;

  beforeAll(async () => {
    guests = await ensureGuests();
    tmp = await mkdtemp(join(tmpdir(), 'kv-guests-'));
  }, 600_000);

  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('the plain guest prints the marker with its kernel release', async () => {
    const vm = await QemuGuest.start({
      kernel: guests.kernel,
      initrd: guests.initrd,
      serialLog: join(tmp, 'plain.log'),
    });
    try {
      const ms = await vm.waitForSerial(MARKER, BOOT_TIMEOUT_MS);
      console.log(`plain guest: qemu start to marker ${ms} ms`);
      expect(await vm.serial()).toContain(`${MARKER} kernel=${guests.kernelVersion} variant=plain`);
      expect(await vm.serial()).not.toContain(NET_MARKER);
    } finally {
      await vm.stop();
    }
  });

  it('the plain guest powers off after the marker with kvts.poweroff=1', async () => {
    const vm = await QemuGuest.start({
      kernel: guests.kernel,
      initrd: guests.initrd,
      serialLog: join(tmp, 'poweroff.log'),
      cmdline: `${GUEST_CMDLINE} kvts.poweroff=1`,
    });
    try {
      await vm.waitForSerial(MARKER, BOOT_TIMEOUT_MS);
      // -no-reboot: an ACPI power-off ends QEMU with status 0.
      expect(await vm.exited).toBe(0);
    } finally {
      await vm.stop();
    }
  });

  it.each([
    { variant: 'plain', agent: false },
    { variant: 'agent', agent: true },
  ])('the $variant guest powers off on the ACPI power button', async ({ variant, agent }) => {
    const qmpSocket = join(tmp, `qmp-${variant}.sock`);
    const vm = await QemuGuest.start({
      kernel: guests.kernel,
      initrd: agent ? guests.agentInitrd : guests.initrd,
      serialLog: join(tmp, `button-${variant}.log`),
      qmpSocket,
      extraArgs: agent ? agentDeviceArgs({ agentSocket: join(tmp, `qga-${variant}.sock`) }) : [],
    });
    try {
      await vm.waitForSerial(`variant=${variant}`, BOOT_TIMEOUT_MS);
      expect(await qmpExecute(qmpSocket, 'system_powerdown')).toEqual({});
      // -no-reboot: the guest's poweroff ends QEMU with status 0.
      expect(await exitWithin(vm, POWER_BUTTON_TIMEOUT_MS)).toBe(0);
      expect(await vm.serial()).toContain('kvts: power button, powering off');
    } finally {
      await vm.stop();
    }
  });

  it('the agent guest mounts its data disk and answers ping and fsfreeze over virtio-serial', async () => {
    const agentSocket = join(tmp, 'qga.sock');
    const vm = await QemuGuest.start({
      kernel: guests.kernel,
      initrd: guests.agentInitrd,
      serialLog: join(tmp, 'agent.log'),
      extraArgs: agentDeviceArgs({ agentSocket, dataDisk: guests.dataDisk }),
    });
    let agent: GuestAgentClient | undefined;
    try {
      const ms = await vm.waitForSerial(MARKER, BOOT_TIMEOUT_MS);
      console.log(`agent guest: qemu start to marker ${ms} ms`);
      expect(await vm.serial()).toContain(
        `${MARKER} kernel=${guests.kernelVersion} variant=agent data=mounted agent=started`,
      );
      expect(await vm.serial()).not.toContain(NET_MARKER);

      agent = await GuestAgentClient.connect(agentSocket);
      await agent.sync();
      expect(await agent.execute('guest-ping')).toEqual({});
      expect(await agent.execute('guest-fsfreeze-status')).toBe('thawed');
      expect(await agent.execute<number>('guest-fsfreeze-freeze')).toBeGreaterThanOrEqual(1);
      expect(await agent.execute('guest-fsfreeze-status')).toBe('frozen');
      expect(await agent.execute<number>('guest-fsfreeze-thaw')).toBeGreaterThanOrEqual(1);
      expect(await agent.execute('guest-fsfreeze-status')).toBe('thawed');
    } finally {
      agent?.close();
      await vm.stop();
    }
  });
});
