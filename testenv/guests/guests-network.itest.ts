// Boots both test guests under TCG with a virtio-net NIC on QEMU's user network: each must print its DHCP
// lease on the NET line right before the marker, echo TCP and UDP and answer its DHCP hostname through host
// port forwards; the agent guest must run a command over ssh for a key from the kernel command line and one
// from its data disk. Prints the QEMU-start-to-marker times.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureGuests, GUEST_CMDLINE, GUEST_PORTS, MARKER, NET_MARKER, sshKeyParam } from './guests.ts';
import type { Guests } from './guests.ts';
import { agentDeviceArgs, QemuGuest, userNetArgs } from './qemu-direct.ts';
import type { HostForward } from './qemu-direct.ts';

const BOOT_TIMEOUT_MS = 90_000;
const IO_TIMEOUT_MS = 10_000;
const run = promisify(execFile);
const SBIN_PATH = { ...process.env, PATH: `${process.env['PATH'] ?? ''}:/usr/sbin:/sbin` };

/** A port of 127.0.0.1 free right now (QEMU binds it a moment later). */
function freePort(proto: 'tcp' | 'udp'): Promise<number> {
  return new Promise((resolve, reject) => {
    if (proto === 'udp') {
      const s = createSocket('udp4');
      s.once('error', reject);
      s.bind(0, '127.0.0.1', () => {
        const { port } = s.address();
        s.close(() => {
          resolve(port);
        });
      });
      return;
    }
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => {
        resolve(port);
      });
    });
  });
}

/** Sends payload (then a FIN), resolves everything the server sent until it closed. */
function tcpExchange(port: number, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.setEncoding('utf8');
    socket.setTimeout(IO_TIMEOUT_MS, () => {
      socket.destroy(new Error(`no close from port ${port}`));
    });
    socket.on('data', (s: string) => {
      got += s;
    });
    socket.once('error', reject);
    socket.once('end', () => {
      resolve(got);
    });
    socket.end(payload);
  });
}

/** Sends one datagram and resolves the first one that comes back (three tries, a second apart). */
function udpExchange(port: number, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    let tries = 0;
    const send = (): void => {
      if (tries++ === 3) {
        finish(new Error(`no datagram back from port ${port}`));
        return;
      }
      socket.send(payload, port, '127.0.0.1');
    };
    const timer = setInterval(send, 1_000);
    const finish = (err: Error | undefined, text = ''): void => {
      clearInterval(timer);
      socket.close();
      if (err === undefined) resolve(text);
      else reject(err);
    };
    socket.once('error', (err) => {
      finish(err);
    });
    socket.once('message', (msg) => {
      finish(undefined, msg.toString('utf8'));
    });
    send();
  });
}

/** A qcow2 ext4 disk whose authorized_keys holds key (the agent guest mounts it at /mnt/data). */
async function keyDisk(dir: string, key: string): Promise<string> {
  const content = join(dir, 'disk-content');
  await mkdir(content, { recursive: true });
  await writeFile(join(content, 'authorized_keys'), key);
  await run('truncate', ['-s', '16M', join(dir, 'disk.raw')]);
  await run('mkfs.ext4', ['-q', '-F', '-d', content, join(dir, 'disk.raw')], { env: SBIN_PATH });
  await run('qemu-img', [
    'convert',
    '-f',
    'raw',
    '-O',
    'qcow2',
    join(dir, 'disk.raw'),
    join(dir, 'disk.qcow2'),
  ]);
  return join(dir, 'disk.qcow2');
}

async function sshKey(dir: string, name: string): Promise<{ key: string; publicKey: string }> {
  const key = join(dir, name);
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `kvts-${name}`, '-f', key]);
  return { key, publicKey: await readFile(`${key}.pub`, 'utf8') };
}

async function sshRun(port: number, key: string, command: string): Promise<string> {
  const { stdout } = await run(
    'ssh',
    [
      ...['-i', key, '-p', String(port), '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes'],
      ...['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'],
      ...['-o', 'ConnectTimeout=30', 'root@127.0.0.1', command],
    ],
    { timeout: 60_000 },
  );
  return stdout;
}

describe('test guests on a user-mode network under TCG', () => {
  let guests: Guests;
  let tmp: string;

  beforeAll(async () => {
    guests = await ensureGuests();
    tmp = await mkdtemp(join(tmpdir(), 'kv-guests-net-'));
  }, 600_000);

  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it.each([
    { variant: 'plain', agent: false },
    { variant: 'agent', agent: true },
  ])(
    'the $variant guest takes the DHCP lease on eth0 and echoes TCP and UDP',
    async ({ variant, agent }) => {
      const dir = join(tmp, variant);
      await mkdir(dir);
      const ports = {
        tcpEcho: await freePort('tcp'),
        udpEcho: await freePort('udp'),
        hostname: await freePort('tcp'),
        ssh: await freePort('tcp'),
      };
      const forwards: HostForward[] = [
        { proto: 'tcp', hostPort: ports.tcpEcho, guestPort: GUEST_PORTS.tcpEcho },
        { proto: 'udp', hostPort: ports.udpEcho, guestPort: GUEST_PORTS.udpEcho },
        { proto: 'tcp', hostPort: ports.hostname, guestPort: GUEST_PORTS.hostname },
        ...(agent ? [{ proto: 'tcp' as const, hostPort: ports.ssh, guestPort: GUEST_PORTS.ssh }] : []),
      ];
      const cmdlineKey = agent ? await sshKey(dir, 'cmdline') : undefined;
      const diskKey = agent ? await sshKey(dir, 'disk') : undefined;
      const agentArgs =
        diskKey === undefined
          ? []
          : agentDeviceArgs({
              agentSocket: join(dir, 'qga.sock'),
              dataDisk: await keyDisk(dir, diskKey.publicKey),
            });
      const vm = await QemuGuest.start({
        kernel: guests.kernel,
        initrd: agent ? guests.agentInitrd : guests.initrd,
        serialLog: join(dir, 'serial.log'),
        cmdline:
          cmdlineKey === undefined ? GUEST_CMDLINE : `${GUEST_CMDLINE} ${sshKeyParam(cmdlineKey.publicKey)}`,
        extraArgs: [...userNetArgs({ hostname: `kvts-net-${variant}`, forwards }), ...agentArgs],
      });
      try {
        const ms = await vm.waitForSerial(MARKER, BOOT_TIMEOUT_MS);
        console.log(`${variant} guest with a NIC: qemu start to marker ${ms} ms`);
        expect(await vm.serial()).toMatch(
          new RegExp(`\\n${NET_MARKER} 10\\.0\\.2\\.15/24\\r?\\n${MARKER} .*variant=${variant}`),
        );

        // inetd serves each connection and datagram, so a second round trip shows it still listens.
        for (const payload of ['hello over tcp\n', 'again\n']) {
          expect(await tcpExchange(ports.tcpEcho, payload)).toBe(payload);
        }
        for (const payload of ['hello over udp', 'again']) {
          expect(await udpExchange(ports.udpEcho, payload)).toBe(payload);
        }
        expect(await tcpExchange(ports.hostname, '')).toBe(`kvts-net-${variant}\n`);
        if (cmdlineKey !== undefined && diskKey !== undefined) {
          expect(await sshRun(ports.ssh, cmdlineKey.key, 'echo hi')).toBe('hi\n');
          expect(await sshRun(ports.ssh, diskKey.key, 'hostname')).toBe('kvts-net-agent\n');
        }
      } finally {
        await vm.stop();
      }
    },
    180_000,
  );
});
