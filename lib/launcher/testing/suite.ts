/**
 * Jest wiring shared by the launcher integration tests: the test guests are built (or found cached) once per
 * file, KVM device access is fixed, and each test's launcher is cleaned up after it.
 */
import { afterEach, beforeAll } from '@jest/globals';
import { ensureGuests, type Guests } from '../../../testenv/guests/guests.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import { ensureKvmDeviceAccess } from '../../libvirt/daemon/kvm-device.ts';
import { startLauncher, type LauncherProcess, type StartOptions } from './harness.ts';

type LaunchOptions = Omit<StartOptions, 'guest' | 'uid'> & {
  /** The guest with qemu-guest-agent and the ext4 data disk. */
  agent?: boolean;
};

export interface LauncherSuite {
  /** Starts a launcher for the VMI uid (grace period 2 s unless given); it is cleaned up after the test. */
  launch: (o: LaunchOptions) => Promise<LauncherProcess>;
  /** The test guests (after beforeAll). */
  guests: () => Guests;
}

export function launcherSuite(uid: string): LauncherSuite {
  let guests: Guests | undefined;
  let running: LauncherProcess | undefined;
  beforeAll(async () => {
    ensureKvmDeviceAccess(nopLogger);
    guests = await ensureGuests();
  }, 600_000);
  afterEach(async () => {
    await running?.cleanup();
    running = undefined;
  });
  const built = (): Guests => {
    if (guests === undefined) throw new Error('the test guests are not built yet (use them inside a test)');
    return guests;
  };
  return {
    guests: built,
    launch: async (o: LaunchOptions): Promise<LauncherProcess> => {
      const g = built();
      const guest =
        o.agent === true
          ? { kernel: g.kernel, initrd: g.agentInitrd, dataDisk: g.dataDisk }
          : { kernel: g.kernel, initrd: g.initrd };
      running = await startLauncher({ ...o, uid, guest, gracePeriodSeconds: o.gracePeriodSeconds ?? 2 });
      return running;
    },
  };
}
