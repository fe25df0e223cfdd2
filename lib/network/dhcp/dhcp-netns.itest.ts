/**
 * The DHCP server against a real client, as a guest will meet it: busybox's udhcpc (the client the test guests
 * run) on one end of a veth pair in a namespace of the test's own, standing for the guest; the server, in a
 * second namespace standing for the launcher Pod's, on 0.0.0.0:67 behind a bridge holding the gateway's
 * address, as the masquerade setup leaves it. The client gets its lease with every option, with and without
 * asking for broadcast replies (the directed-broadcast reply of reply.ts is what reaches it), and renews by
 * unicast from the address it was given. Nothing is done in the host's namespace.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../../kernel/testing/wait.ts';
import { runCommand } from '../setup/command.ts';
import { masqueradeDhcpConfig } from './config.ts';

const SUFFIX = randomBytes(4).toString('hex');
const POD_NS = `kvts-dhcp-${SUFFIX}`;
const GUEST_NS = `kvts-dhcp-${SUFFIX}-guest`;
const GUEST_MAC = '02:4b:56:00:00:02';
const SERVE = fileURLToPath(new URL('./testing/serve.ts', import.meta.url));
const RESOLV =
  'search ns1.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n';

const ip = (...args: string[]): Promise<string> => runCommand(['ip', ...args], '');
const inGuest = (...argv: string[]): Promise<string> =>
  runCommand(['nsenter', `--net=/run/netns/${GUEST_NS}`, '--', ...argv], '');

const dir = mkdtempSync(join(tmpdir(), 'kvts-dhcp-'));
const leaseFile = join(dir, 'lease.env');
const script = join(dir, 'udhcpc.script');
let server: ChildProcess | undefined;
let serverErr = '';

beforeAll(async () => {
  await ip('netns', 'add', POD_NS);
  await ip('netns', 'add', GUEST_NS);
  await ip('-n', POD_NS, 'link', 'add', 'k6t-eth0', 'type', 'bridge');
  await ip('-n', POD_NS, 'address', 'add', '10.0.2.1/24', 'dev', 'k6t-eth0');
  await ip('-n', POD_NS, 'link', 'add', 'tap0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', GUEST_NS);
  await ip('-n', POD_NS, 'link', 'set', 'tap0', 'master', 'k6t-eth0');
  for (const link of ['lo', 'tap0', 'k6t-eth0']) await ip('-n', POD_NS, 'link', 'set', link, 'up');
  await ip('-n', GUEST_NS, 'link', 'set', 'eth0', 'address', GUEST_MAC, 'mtu', '1400');
  for (const link of ['lo', 'eth0']) await ip('-n', GUEST_NS, 'link', 'set', link, 'up');
  // udhcpc runs this on each event: on a lease it configures the address and keeps what the server said.
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      '[ "$1" = bound ] || [ "$1" = renew ] || exit 0',
      'busybox ifconfig "$interface" "$ip" netmask "$subnet"',
      // Written whole, then renamed: the test waits for the file to appear.
      `env > ${leaseFile}.tmp && mv ${leaseFile}.tmp ${leaseFile}.$1`,
      '',
    ].join('\n'),
  );
  chmodSync(script, 0o755);
  const config = masqueradeDhcpConfig({
    network: { name: 'default', pod: {} },
    networkIndex: 0,
    clientMac: GUEST_MAC,
    mtu: 1400,
    resolvConf: RESOLV,
    hostname: 'vmi-dhcp',
  });
  server = spawn(
    'nsenter',
    [`--net=/run/netns/${POD_NS}`, '--', process.execPath, '--import', 'tsx', SERVE, JSON.stringify(config)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  server.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  server.stderr?.on('data', (d: Buffer) => (serverErr += d.toString()));
  await waitFor(
    () => out.includes('ready'),
    () => `the DHCP server ready (stderr: ${serverErr})`,
    {
      timeoutMs: 30_000,
    },
  );
}, 60_000);

afterAll(async () => {
  server?.kill('SIGTERM');
  for (const ns of [GUEST_NS, POD_NS]) await ip('netns', 'delete', ns).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
  expect(await ip('netns', 'list')).not.toContain(POD_NS);
});

/** The environment udhcpc gave its script for `event`. */
function lease(event: string): Record<string, string> {
  const text = readFileSync(`${leaseFile}.${event}`, 'utf8');
  const pairs = text.split('\n').flatMap((l): [string, string][] => {
    const at = l.indexOf('=');
    return at < 0 ? [] : [[l.slice(0, at), l.slice(at + 1)]];
  });
  return Object.fromEntries(pairs);
}

const udhcpc = (...flags: string[]): Promise<string> =>
  inGuest(
    'busybox',
    'udhcpc',
    '-i',
    'eth0',
    '-f',
    '-q',
    '-n',
    '-t',
    '5',
    '-T',
    '1',
    '-s',
    join(dir, 'udhcpc.script'),
    ...flags,
  );

describe('the DHCP server in a namespace behind the masquerade bridge', () => {
  it.each([
    ['unicast replies', []],
    ['broadcast replies (-B)', ['-B']],
  ])(
    'leases the guest its address and options, the client asking for %s',
    async (_, flags) => {
      rmSync(`${leaseFile}.bound`, { force: true });
      await udhcpc(...flags);
      expect(lease('bound')).toMatchObject({
        interface: 'eth0',
        ip: '10.0.2.2',
        subnet: '255.255.255.0',
        router: '10.0.2.1',
        serverid: '10.0.2.1',
        dns: '10.96.0.10',
        mtu: '1400',
        hostname: 'vmi-dhcp',
        domain: 'ns1.svc.cluster.local',
        search: 'ns1.svc.cluster.local svc.cluster.local cluster.local',
      });
      // A client without an address is answered at the VM network's directed broadcast.
      expect(serverErr).toContain('"destination":"10.0.2.255"');
    },
    60_000,
  );

  it('renews by unicast from the address it holds', async () => {
    rmSync(`${leaseFile}.bound`, { force: true });
    rmSync(`${leaseFile}.renew`, { force: true });
    const client = spawn(
      'nsenter',
      [`--net=/run/netns/${GUEST_NS}`, '--', 'busybox', 'udhcpc', '-i', 'eth0', '-f', '-s', script],
      { stdio: 'ignore' },
    );
    try {
      await waitFor(() => existsSync(`${leaseFile}.bound`), 'a lease', { timeoutMs: 30_000 });
      // SIGUSR1: renew now, a REQUEST from the leased address straight to the server.
      client.kill('SIGUSR1');
      await waitFor(() => existsSync(`${leaseFile}.renew`), 'the renewal acknowledged', {
        timeoutMs: 30_000,
      });
    } finally {
      client.kill('SIGTERM');
    }
    expect(lease('renew')).toMatchObject({ ip: '10.0.2.2', router: '10.0.2.1' });
    expect(serverErr).toMatch(/"DHCP request answered".*"reply":5,"destination":"10\.0\.2\.2"/);
    expect(serverErr).not.toContain('"level":"error"');
  }, 60_000);
});
