/**
 * Does KVM really run guests here? A /dev/kvm that opens, and a libvirt that lists kvm, are not enough: on
 * nested hosts KVM can abort QEMU on the first guest MSR write (`-cpu host`: "failed to set MSR 0x10a") or
 * run guest code a hundred times slower than TCG (every page fault a round trip through the outer
 * hypervisor). So we boot a tiny guest (kvm-probe.S) with `-accel kvm -cpu host`: it must switch to long
 * mode, touch 32 MiB, read an MSR and leave through isa-debug-exit within the deadline. A working KVM does
 * that in well under a second; TCG does it in about 0.3 s.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realClock, type Clock } from '../../kernel/clock.ts';

/**
 * kvm-probe.S assembled and linked flat:
 * `as --32 -o p.o kvm-probe.S && ld -m elf_i386 -Ttext=0x100000 --oformat binary -o p.bin p.o`
 * (kvm-probe.test.ts rebuilds it and compares).
 */
export const KVM_PROBE_IMAGE = Buffer.from(
  'ArCtGwAAAQD+T1HkAAAQAAAAEADuABAA7gAQACAAEAD6Zrr4A7BQ7r8AACAAMcC5AAwAAPOrxwUAACAAAxAgAMcFABAgAAMgIAC/' +
    'ACAgALiDAAAAuQACAACJB8dHBAAAAAAFAAAgAIPHCOLtDyDgg8ggDyLguAAAIAAPIti5gAAAwA8yDQABAAAPMA8gwA0BAACADyLA' +
    'DwEV6AAQAOqkABAACABmuvgDsEzuSMfHAAAAAUjHwQAAAAIxwPOqDzG5GwAAAA8yZrr4A7BL7ma69ACwIe706/2QAAAAAAAAAAD/' +
    '/wAAAJqvAA8A2AAQAA==',
  'base64',
);

/** What the probe prints on COM1 and the status QEMU exits with when the guest got to the end. */
const PROBE_SERIAL = 'PLK';
const PROBE_EXIT_STATUS = 67;

export interface ProbeOptions {
  /** qemu-system binary (libvirt's domain capabilities name it). */
  readonly qemu: string;
  readonly accel: 'kvm' | 'tcg';
  readonly timeoutMs?: number;
  readonly clock?: Clock;
}

export interface ProbeResult {
  readonly ok: boolean;
  /** Why not, in a sentence (QEMU's own error when it gave one). */
  readonly reason: string;
  readonly elapsedMs: number;
}

/** Reads a probe run: the guest reached the end only if QEMU exited 67 after printing PLK. Pure. */
export function judgeProbe(r: {
  exitCode: number | null;
  serial: string;
  stderr: string;
  timedOut: boolean;
  timeoutMs: number;
}): { ok: boolean; reason: string } {
  if (r.timedOut) {
    return {
      ok: false,
      reason: `guest did not finish within ${r.timeoutMs} ms (got ${JSON.stringify(r.serial)})`,
    };
  }
  if (r.exitCode === PROBE_EXIT_STATUS && r.serial.endsWith(PROBE_SERIAL)) return { ok: true, reason: 'ok' };
  const err = r.stderr
    .split('\n')
    .filter((l) => l.includes('error') || l.includes('Assertion') || l.includes('failed'))
    .join('; ');
  return {
    ok: false,
    reason: `qemu exited ${r.exitCode ?? 'on a signal'} after ${JSON.stringify(r.serial)}${err === '' ? '' : `: ${err}`}`,
  };
}

function qemuArgs(image: string, accel: 'kvm' | 'tcg'): string[] {
  return [
    ...['-accel', accel, '-cpu', accel === 'kvm' ? 'host' : 'qemu64', '-machine', 'q35', '-m', '64'],
    ...['-nodefaults', '-display', 'none', '-serial', 'stdio', '-no-reboot'],
    ...['-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04', '-kernel', image],
  ];
}

export async function runKvmProbe(opts: ProbeOptions): Promise<ProbeResult> {
  const clock = opts.clock ?? realClock;
  const timeoutMs = opts.timeoutMs ?? 5000;
  const dir = await mkdtemp(join(tmpdir(), 'kv-kvm-probe-'));
  const image = join(dir, 'probe.bin');
  await writeFile(image, KVM_PROBE_IMAGE);
  const started = clock.now();
  try {
    const child = spawn(opts.qemu, qemuArgs(image, opts.accel), { stdio: ['ignore', 'pipe', 'pipe'] });
    let serial = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (serial = (serial + c.toString('latin1')).slice(-200)));
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-2000)));
    let timedOut = false;
    const timer = clock.after(timeoutMs, () => {
      timedOut = true;
      child.kill('SIGKILL');
    });
    const exitCode = await new Promise<number | null>((resolve) => {
      child.once('error', (err) => {
        stderr += `error: ${err.message}`;
        resolve(null);
      });
      child.once('close', (code) => {
        resolve(code);
      });
    });
    timer.cancel();
    return {
      ...judgeProbe({ exitCode, serial, stderr, timedOut, timeoutMs }),
      elapsedMs: clock.now() - started,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
