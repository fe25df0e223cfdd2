/**
 * Boots a test guest with qemu-system-x86_64 directly (no libvirt): TCG with the qemu64 CPU (KVM does not
 * work on these machines), kernel boot, serial console appended to a file, no reboot, and no network unless
 * userNetArgs() adds a NIC.
 * Used to check the guests themselves and to measure boot-to-marker without libvirt in the way.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { realClock } from '../../lib/kernel/clock.ts';
import type { Clock } from '../../lib/kernel/clock.ts';
import { KvError } from '../../lib/kernel/errors/errors.ts';
import { GUEST_AGENT_PORT, GUEST_CMDLINE } from './guests.ts';

const QEMU_BINARY = 'qemu-system-x86_64';

export interface QemuGuestOptions {
  kernel: string;
  initrd: string;
  /** Serial console (ttyS0) output goes to this file. */
  serialLog: string;
  /** Kernel command line; default GUEST_CMDLINE. */
  cmdline?: string;
  memoryMiB?: number;
  /** Extra QEMU arguments (devices), e.g. from agentDeviceArgs(). */
  extraArgs?: string[];
  /** Unix socket QEMU listens on for QMP (see qmp.ts); none by default. */
  qmpSocket?: string;
}

/** The QEMU command line (pure). */
export function qemuArgs(o: QemuGuestOptions): string[] {
  return [
    ...['-accel', 'tcg', '-cpu', 'qemu64', '-machine', 'q35', '-m', String(o.memoryMiB ?? 256), '-smp', '1'],
    ...[
      '-nodefaults',
      '-no-user-config',
      '-display',
      'none',
      '-monitor',
      'none',
      '-nic',
      'none',
      '-no-reboot',
    ],
    ...['-serial', `file:${o.serialLog}`],
    ...['-kernel', o.kernel, '-initrd', o.initrd, '-append', o.cmdline ?? GUEST_CMDLINE],
    ...(o.qmpSocket === undefined ? [] : ['-qmp', `unix:${o.qmpSocket},server=on,wait=off`]),
    ...(o.extraArgs ?? []),
  ];
}

export interface AgentDevices {
  /** Unix socket QEMU listens on for the guest-agent channel. */
  agentSocket: string;
  /** qcow2 data disk, attached as virtio-blk (/dev/vda) with snapshot=on: the image is never written. */
  dataDisk?: string;
}

/** virtio-serial with the org.qemu.guest_agent.0 port on a unix socket server, plus the data disk. */
export function agentDeviceArgs(d: AgentDevices): string[] {
  const args = [
    ...['-device', 'virtio-serial-pci,id=vs0'],
    ...['-chardev', `socket,id=qga0,path=${d.agentSocket},server=on,wait=off`],
    ...['-device', `virtserialport,bus=vs0.0,chardev=qga0,name=${GUEST_AGENT_PORT}`],
  ];
  if (d.dataDisk === undefined) return args;
  return [
    ...args,
    ...['-drive', `file=${d.dataDisk},format=qcow2,if=none,id=data0,snapshot=on`],
    ...['-device', 'virtio-blk-pci,drive=data0'],
  ];
}

export interface HostForward {
  proto: 'tcp' | 'udp';
  /** Port on the host's 127.0.0.1. */
  hostPort: number;
  guestPort: number;
}

export interface UserNetwork {
  forwards: readonly HostForward[];
  /** The hostname QEMU's DHCP server gives the guest. */
  hostname?: string;
}

/**
 * A virtio-net NIC on QEMU's user-mode network (its DHCP server leases 10.0.2.15/24, router 10.0.2.2), with
 * ports of the host's loopback forwarded to the guest.
 */
export function userNetArgs(n: UserNetwork): string[] {
  const hostname = n.hostname === undefined ? '' : `,hostname=${n.hostname}`;
  const forwards = n.forwards.map((f) => `,hostfwd=${f.proto}:127.0.0.1:${f.hostPort}-:${f.guestPort}`);
  return [
    ...['-netdev', `user,id=n0${hostname}${forwards.join('')}`],
    ...['-device', 'virtio-net-pci,netdev=n0'],
  ];
}

export class QemuGuest {
  /** Exit code (null when killed by a signal), once QEMU has exited. */
  readonly exited: Promise<number | null>;
  private exitCode: number | null | undefined;
  private stderr = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly serialLog: string,
    private readonly startedAt: number,
    private readonly clock: Clock,
  ) {
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (s: string) => {
      this.stderr = (this.stderr + s).slice(-4096);
    });
    this.exited = new Promise((resolve) => {
      child.once('exit', (code) => {
        this.exitCode = code;
        resolve(code);
      });
    });
  }

  static async start(o: QemuGuestOptions, clock: Clock = realClock): Promise<QemuGuest> {
    const child = spawn(QEMU_BINARY, qemuArgs(o), { stdio: ['ignore', 'ignore', 'pipe'] });
    const startedAt = clock.now();
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err) => {
        reject(new KvError('KV_ERR_CONFIG', `cannot start ${QEMU_BINARY}`, { cause: err }));
      });
    });
    child.on('error', () => undefined);
    return new QemuGuest(child, o.serialLog, startedAt, clock);
  }

  /** Polls the serial log until it contains text; resolves the milliseconds since QEMU was started. */
  async waitForSerial(text: string, timeoutMs: number): Promise<number> {
    const deadline = this.startedAt + timeoutMs;
    for (;;) {
      if ((await this.serial()).includes(text)) return this.clock.now() - this.startedAt;
      if (this.exitCode !== undefined) {
        throw new KvError(
          'KV_ERR_INTERNAL',
          `qemu exited (${this.exitCode}) before "${text}": ${this.stderr}`,
        );
      }
      if (this.clock.now() >= deadline) {
        throw new KvError('KV_ERR_TIMEOUT', `no "${text}" on the serial console after ${timeoutMs} ms`);
      }
      await this.clock.sleep(50);
    }
  }

  /** The serial console output so far ('' before QEMU created the file). */
  async serial(): Promise<string> {
    try {
      return await readFile(this.serialLog, 'utf8');
    } catch {
      return '';
    }
  }

  /** SIGTERM, then SIGKILL after graceMs; resolves once QEMU has exited. */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.exitCode !== undefined) return;
    this.child.kill('SIGTERM');
    const timer = this.clock.after(graceMs, () => this.child.kill('SIGKILL'));
    await this.exited;
    timer.cancel();
  }
}
