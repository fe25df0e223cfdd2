// The migration proxies end to end over real sockets and real TLS on 127.0.0.1: a source handler's manager and
// a target handler's manager on one pods dir, the target launcher's libvirt and QEMU sockets played by
// stand-ins. Bytes flow source unix → TLS TCP → target unix and back, half-closes and breaks pass through,
// strangers are refused at the TLS port, stop closes everything, and the port range runs out with a clear error.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readdir, rename, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createServer, type Server } from 'node:net';
import { connect } from 'node:tls';
import { memoryLogger } from '../../kernel/log/log.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import { launcherOnNode, podPathText } from '../../rpc/index.ts';
import type { TestPem } from '../../../testenv/pki.ts';
import { pemOf } from '../../../testenv/pki.ts';
import { hostTargets, podDirs, type PodDirs } from '../testing/planted.ts';
import { libvirtSocketOnNode } from './framing.ts';
import { MigrationProxyManager } from './manager.ts';
import type { PortRange } from './ports.ts';
import { dialUnix, fakeEnd, migrationPki, migrationTls, type FakeEnd } from './testing/fixture.ts';

const UID = 'u1';
const RANGE: PortRange = { first: 47135, last: 47164 };
let pki: Record<string, TestPem>;
let dirs: PodDirs;
let libvirt: FakeEnd;
let qemu: FakeEnd;
const managers: MigrationProxyManager[] = [];

beforeAll(async () => {
  pki = await migrationPki();
}, 30_000);

beforeEach(async () => {
  dirs = await podDirs('sp', ['public']);
  await dirs.addPod('tp', ['public', 'libvirt-runtime']);
  const target = launcherOnNode(dirs.podsDir, 'tp');
  libvirt = await fakeEnd(libvirtSocketOnNode(dirs.podsDir, 'tp'), 'libvirt');
  qemu = await fakeEnd(target.migrationSocket(UID, 49152), 'qemu');
});

afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
  await libvirt.close();
  await qemu.close();
  await dirs.cleanup();
});

function manager(o: { range?: PortRange; server?: string } = {}): MigrationProxyManager {
  const m = new MigrationProxyManager({
    kubeletPodsDir: dirs.podsDir,
    host: '127.0.0.1',
    portRange: o.range ?? RANGE,
    tls: migrationTls(pki, o.server),
    log: memoryLogger('handler').log,
  });
  managers.push(m);
  return m;
}

const sourceSocket = (port: number): string =>
  podPathText(launcherOnNode(dirs.podsDir, 'sp').migrationSocket(UID, port));

/** A target and a source manager with the proxies of one migration started; the target's port map. */
async function tunnels(o: { blockMigration?: boolean; server?: string } = {}) {
  const target = manager(o.server === undefined ? {} : { server: o.server });
  const source = manager();
  const ports = await target.startTarget(UID, { podUid: 'tp', blockMigration: o.blockMigration ?? false });
  await source.startSource(UID, { podUid: 'sp', targetAddress: '127.0.0.1', ports });
  return { target, source, ports };
}

describe('tunnels', () => {
  it('carries bytes both ways to libvirt and to QEMU, each on its own node port', async () => {
    const { ports, source } = await tunnels();
    expect(Object.values(ports).sort()).toEqual([0, 49152]);
    for (const p of Object.keys(ports).map(Number)) expect(p >= RANGE.first && p <= RANGE.last).toBe(true);
    expect(source.sourceSockets(UID)).toEqual([sourceSocket(0), sourceSocket(49152)]);

    const toLibvirt = dialUnix(sourceSocket(0));
    toLibvirt.socket.write('hello');
    await waitFor(() => toLibvirt.text() === 'libvirt:hello', 'the libvirt answer');
    const toQemu = dialUnix(sourceSocket(49152));
    const big = 'x'.repeat(1 << 20);
    toQemu.socket.end(big);
    await waitFor(() => toQemu.text().endsWith('qemu saw end'), 'the QEMU stream through');
    expect(toQemu.text().length).toBe(
      'qemu:'.length * qemu.received.length + big.length + 'qemu saw end'.length,
    );
    expect(qemu.received.join('')).toBe(big);
    expect(libvirt.received).toEqual(['hello']);
    toLibvirt.socket.destroy();
  });

  it('passes a half-close on: the source stops sending and still reads the answer', async () => {
    await tunnels();
    const c = dialUnix(sourceSocket(0), { halfOpen: true });
    c.socket.end('last words');
    expect(await c.ended).toBe(true);
    expect(c.text()).toBe('libvirt:last wordslibvirt saw end');
  });

  it('passes a half-close back: the target ends its sending and the source may still send', async () => {
    await tunnels();
    const c = dialUnix(sourceSocket(0), { halfOpen: true });
    c.socket.write('one');
    await waitFor(() => libvirt.open.size === 1 && c.text() === 'libvirt:one', 'the tunnel open');
    for (const s of libvirt.open) s.end('bye');
    expect(await c.ended).toBe(true);
    c.socket.end('after');
    await waitFor(() => libvirt.received.includes('after'), 'the bytes sent after the far end');
    await c.closed;
  });

  it('breaks the tunnel when the target launcher drops the connection', async () => {
    const { source, target } = await tunnels();
    const c = dialUnix(sourceSocket(0));
    c.socket.write('x');
    await waitFor(() => libvirt.open.size === 1, 'the tunnel open');
    for (const s of libvirt.open) s.destroy();
    await c.closed;
    expect(c.text()).toBe('libvirt:x');
    await waitFor(
      () => source.openConnectionCount() + target.openConnectionCount() === 0,
      'every leg closed',
    );
  });

  it('closes the caller when the target socket is not there, and the tunnels of others go on', async () => {
    const { target, source } = await tunnels({ blockMigration: true });
    expect(Object.values(target.targetPorts(UID)).sort()).toEqual([0, 49152, 49153]);
    expect(source.sourceSockets(UID)).toHaveLength(3);
    const c = dialUnix(sourceSocket(49153));
    c.socket.write('disk');
    await c.closed;
    expect(c.text()).toBe('');
    const ok = dialUnix(sourceSocket(49152));
    ok.socket.end('mem');
    expect(await ok.ended).toBe(true);
  });
});

describe('the target port', () => {
  async function answer(as: string | undefined, port: number): Promise<string> {
    const s = connect({
      host: '127.0.0.1',
      port,
      ca: pemOf(pki, 'ca').cert,
      checkServerIdentity: () => undefined,
      ...(as !== undefined && pemOf(pki, as)),
    });
    const chunks: Buffer[] = [];
    s.on('error', () => undefined);
    s.on('data', (d: Buffer) => chunks.push(d));
    s.once('secureConnect', () => s.write('let me in'));
    await new Promise((resolve) => s.once('close', resolve));
    return Buffer.concat(chunks).toString();
  }

  it.each<[string, string | undefined]>([
    ['no certificate', undefined],
    ['a certificate of another CA', 'stranger'],
    ['another name', 'other-name'],
    ['the right name made for server use', 'server-usage'],
  ])('refuses a caller with %s', async (_what, as) => {
    const { ports } = await tunnels();
    const libvirtPort = Number(Object.keys(ports).find((k) => ports[k] === 0));
    expect(await answer(as, libvirtPort)).toBe('');
    expect(libvirt.connections).toBe(0);
  });

  it('lets the handlers’ client certificate through', async () => {
    const { ports } = await tunnels();
    const libvirtPort = Number(Object.keys(ports).find((k) => ports[k] === 0));
    const s = connect({
      host: '127.0.0.1',
      port: libvirtPort,
      ca: pemOf(pki, 'ca').cert,
      checkServerIdentity: () => undefined,
      ...pemOf(pki, 'client'),
    });
    s.on('error', () => undefined);
    s.write('hi');
    const [d] = (await once(s, 'data')) as [Buffer];
    expect(d.toString()).toBe('libvirt:hi');
    s.destroy();
  });

  it('is not dialled by a source when it shows another name than the handlers’ server name', async () => {
    await tunnels({ server: 'other-server' });
    const c = dialUnix(sourceSocket(0));
    c.socket.write('x');
    await c.closed;
    expect(c.text()).toBe('');
    expect(libvirt.received).toEqual([]);
  });
});

describe('the manager', () => {
  it('keeps running proxies for the same inputs and replaces them for others', async () => {
    const { target, source, ports } = await tunnels();
    expect(await target.startTarget(UID, { podUid: 'tp', blockMigration: false })).toEqual(ports);
    await source.startSource(UID, { podUid: 'sp', targetAddress: '127.0.0.1', ports });
    const c = dialUnix(sourceSocket(0));
    c.socket.write('still');
    await waitFor(() => c.text() === 'libvirt:still', 'the tunnel of the first start');
    const block = await target.startTarget(UID, { podUid: 'tp', blockMigration: true });
    expect(Object.values(block).sort()).toEqual([0, 49152, 49153]);
    await c.closed;
    expect(target.openListenerCount()).toBe(1);
  });

  it('stops one side of a migration: listeners closed, tunnels cut, sockets gone; again is a no-op', async () => {
    const { target, source, ports } = await tunnels();
    const c = dialUnix(sourceSocket(0));
    c.socket.write('x');
    await waitFor(() => libvirt.open.size === 1, 'the tunnel open');
    expect(source.openConnectionCount()).toBe(2);
    await source.stopSource(UID);
    await c.closed;
    expect(existsSync(sourceSocket(0))).toBe(false);
    expect(existsSync(sourceSocket(49152))).toBe(false);
    await waitFor(() => libvirt.open.size === 0, 'the target launcher side closed');
    await source.stopSource(UID);
    expect(source.openListenerCount()).toBe(0);

    await target.stopTarget(UID);
    expect(target.targetPorts(UID)).toEqual({});
    const refused = createServer();
    const port = Number(Object.keys(ports)[0]);
    // The port is free again: another program may bind it.
    await new Promise<void>((resolve) => refused.listen(port, '127.0.0.1', resolve));
    await new Promise<void>((resolve) =>
      refused.close(() => {
        resolve();
      }),
    );
  });

  it('takes rotated TLS material for the next handshakes', async () => {
    const { target } = await tunnels();
    const first = dialUnix(sourceSocket(0));
    first.socket.write('before');
    await waitFor(() => first.text() === 'libvirt:before', 'a tunnel with the first certificate');
    target.reloadTls(migrationTls(pki, 'other-server'));
    const second = dialUnix(sourceSocket(0));
    second.socket.write('after');
    await second.closed;
    expect(second.text()).toBe('');
    expect(libvirt.received).toEqual(['before']);
    expect(() => {
      target.reloadTls({ ...migrationTls(pki), key: Buffer.from(pemOf(pki, 'client').key) });
    }).toThrow(expect.objectContaining({ code: 'KV_ERR_CONFIG' }));
    first.socket.destroy();
  });

  it('refuses new proxies after shutdown and stops all on close', async () => {
    const { target, source } = await tunnels();
    source.shutdown();
    await expect(
      source.startSource('u2', { podUid: 'sp', targetAddress: '127.0.0.1', ports: { '1': 0 } }),
    ).rejects.toMatchObject({ code: 'KV_ERR_SHUTDOWN' });
    await target.close();
    await source.close();
    expect(target.openListenerCount() + source.openListenerCount()).toBe(0);
    expect(existsSync(sourceSocket(0))).toBe(false);
  });

  it('runs out of ports with a clear error, skips a port another program holds, and reuses freed ones', async () => {
    // Below the kernel's ephemeral range (32768–60999 here), where other tests' outgoing connections take ports.
    const range = { first: 29170, last: 29172 };
    const other: Server = createServer();
    await new Promise<void>((resolve) => other.listen(29171, '127.0.0.1', resolve));
    try {
      const m = manager({ range });
      expect(Object.keys(await m.startTarget('a', { podUid: 'tp', blockMigration: false }))).toEqual([
        '29170',
        '29172',
      ]);
      await expect(m.startTarget('b', { podUid: 'tp', blockMigration: false })).rejects.toMatchObject({
        code: 'KV_ERR_CONFIG',
        message:
          'no free migration port in 29170-29172: 2 of 3 held by migration proxies, 1 in use by other programs',
      });
      expect(m.openListenerCount()).toBe(1);
      await m.stopTarget('a');
      expect(Object.keys(await m.startTarget('b', { podUid: 'tp', blockMigration: false }))).toEqual([
        '29170',
        '29172',
      ]);
    } finally {
      await new Promise<void>((resolve) =>
        other.close(() => {
          resolve();
        }),
      );
    }
  });

  it('refuses a port map it cannot trust before it makes any socket', async () => {
    const m = manager();
    await expect(
      m.startSource(UID, { podUid: 'sp', targetAddress: '127.0.0.1', ports: { '4135': 22 } }),
    ).rejects.toMatchObject({ code: 'KV_ERR_INVALID' });
    await expect(
      m.startSource(UID, { podUid: 'sp', targetAddress: '127.0.0.1', ports: {} }),
    ).rejects.toMatchObject({
      code: 'KV_ERR_INVALID',
    });
    expect(existsSync(dirs.volume('public') + '/migrationproxy')).toBe(false);
  });
});

describe("the tenant's directories", () => {
  it('makes no socket through a migrationproxy directory the tenant made a symlink', async () => {
    const host = await hostTargets();
    try {
      await symlink(dirname(host.socket), join(dirs.volume('public'), 'migrationproxy'));
      const before = await readdir(dirname(host.socket));
      const m = manager();
      await expect(
        m.startSource(UID, { podUid: 'sp', targetAddress: '127.0.0.1', ports: { '47135': 0 } }),
      ).rejects.toMatchObject({ code: 'KV_ERR_UNSAFE_PATH' });
      expect(await readdir(dirname(host.socket))).toEqual(before);
      expect(m.openListenerCount()).toBe(0);
    } finally {
      await host.cleanup();
    }
  });

  it('never relays a caller to a host socket the tenant links in place of libvirt’s', async () => {
    const host = await hostTargets();
    try {
      await tunnels();
      const libvirtDir = dirname(podPathText(libvirtSocketOnNode(dirs.podsDir, 'tp')));
      await rename(libvirtDir, `${libvirtDir}.real`);
      await symlink(dirname(host.socket), libvirtDir);
      await rename(host.socket, join(dirname(host.socket), 'libvirt-sock'));
      const c = dialUnix(sourceSocket(0));
      c.socket.write('x');
      await c.closed;
      expect(c.text()).toBe('');
      expect(host.connections).toBe(0);
    } finally {
      await host.cleanup();
    }
  });
});
