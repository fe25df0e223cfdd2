/**
 * The DHCPv6 server against a real client, as a guest will meet it: ISC dhclient -6 (Debian's isc-dhcp-client;
 * Debian's busybox has no udhcpc6) on one end of a veth pair in a namespace of the test's own, standing for
 * the guest; the server, in a second namespace standing for the launcher Pod's, on [::]:547 joined to
 * ff02::1:2 on a bridge with KubeVirt's masquerade MAC and the gateway's fd10:0:2::1, as the masquerade setup
 * leaves it. The client gets fd10:0:2::2 with KubeVirt's lifetimes and the Pod's IPv6 DNS server, through
 * Solicit, Advertise, Request and Reply, and the same DNS server statelessly through an Information-request.
 * Nothing is done in the host's namespace.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../../kernel/testing/wait.ts';
import { runCommand } from '../setup/command.ts';
import type { ServeInput } from './testing/serve.ts';

const SUFFIX = randomBytes(4).toString('hex');
const POD_NS = `kvts-dhcp6-${SUFFIX}`;
const GUEST_NS = `kvts-dhcp6-${SUFFIX}-guest`;
const BRIDGE = 'k6t-eth0';
const BRIDGE_MAC = '02:00:00:00:00:00';
const GUEST_MAC = '02:4b:56:00:00:02';
const SERVE = fileURLToPath(new URL('./testing/serve.ts', import.meta.url));
const RESOLV = [
  'search ns1.svc.cluster.local svc.cluster.local cluster.local',
  'nameserver 10.96.0.10',
  'nameserver fd00:10:96::a',
  'options ndots:5',
  '',
].join('\n');

const ip = (...args: string[]): Promise<string> => runCommand(['ip', ...args], '');
const inNs = (ns: string, ...argv: string[]): Promise<string> =>
  runCommand(['nsenter', `--net=/run/netns/${ns}`, '--', ...argv], '');

const dir = mkdtempSync(join(tmpdir(), 'kvts-dhcp6-'));
const script = join(dir, 'dhclient.script');
const conf = join(dir, 'dhclient.conf');
/** What the script keeps of each event, apart from dhclient's own lease and pid files. */
const envDir = join(dir, 'env');
const stateDir = join(dir, 'state');
let server: ChildProcess | undefined;
let serverErr = '';

/** Waits until `device` in `ns` has a link-local address that is no longer tentative. */
const linkLocal = (ns: string, device: string): Promise<string> =>
  waitFor(
    async () => {
      const out = await ip('-n', ns, '-6', '-o', 'address', 'show', 'dev', device, 'scope', 'link');
      return out.includes('fe80::') && !out.includes('tentative') && out;
    },
    `a link-local address on ${device} in ${ns}`,
    { timeoutMs: 30_000 },
  );

beforeAll(async () => {
  for (const ns of [POD_NS, GUEST_NS]) {
    await ip('netns', 'add', ns);
    // No duplicate address detection, so link-local addresses are usable at once (the namespaces are private).
    await inNs(
      ns,
      'sysctl',
      '-q',
      '-w',
      'net.ipv6.conf.all.accept_dad=0',
      'net.ipv6.conf.default.accept_dad=0',
    );
  }
  await ip('-n', POD_NS, 'link', 'add', BRIDGE, 'address', BRIDGE_MAC, 'type', 'bridge');
  await ip('-n', POD_NS, 'address', 'add', 'fd10:0:2::1/120', 'dev', BRIDGE, 'nodad');
  await ip('-n', POD_NS, 'link', 'add', 'tap0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', GUEST_NS);
  await ip('-n', POD_NS, 'link', 'set', 'tap0', 'master', BRIDGE);
  for (const link of ['lo', 'tap0', BRIDGE]) await ip('-n', POD_NS, 'link', 'set', link, 'up');
  await ip('-n', GUEST_NS, 'link', 'set', 'eth0', 'address', GUEST_MAC);
  for (const link of ['lo', 'eth0']) await ip('-n', GUEST_NS, 'link', 'set', link, 'up');
  await linkLocal(POD_NS, BRIDGE);
  await linkLocal(GUEST_NS, 'eth0');

  // dhclient runs this on each event: on a lease it sets the address; whatever a server said is kept in
  // $LEASE_FILE.<reason> (written whole, then renamed: the test waits for the file to appear).
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      'case "$reason" in BOUND6|RENEW6|REBIND6)',
      '  [ -z "$new_ip6_address" ] || ip -6 address replace "$new_ip6_address/${new_ip6_prefixlen:-128}" dev "$interface" ;;',
      'esac',
      '[ -n "$new_dhcp6_server_id" ] || exit 0',
      'env > "$LEASE_FILE.tmp" && mv "$LEASE_FILE.tmp" "$LEASE_FILE.$reason"',
      '',
    ].join('\n'),
  );
  chmodSync(script, 0o755);
  for (const d of [envDir, stateDir]) mkdirSync(d);
  writeFileSync(conf, 'request dhcp6.name-servers, dhcp6.domain-search;\n');

  const input: ServeInput = {
    network: { name: 'default', pod: {} },
    networkIndex: 0,
    resolvConf: RESOLV,
    link: BRIDGE,
  };
  server = spawn(
    'nsenter',
    [`--net=/run/netns/${POD_NS}`, '--', process.execPath, '--import', 'tsx', SERVE, JSON.stringify(input)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  server.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  server.stderr?.on('data', (d: Buffer) => (serverErr += d.toString()));
  await waitFor(
    () => out.includes('ready'),
    () => `the DHCPv6 server ready (stderr: ${serverErr})`,
    { timeoutMs: 30_000 },
  );
}, 90_000);

afterAll(async () => {
  server?.kill('SIGTERM');
  for (const ns of [GUEST_NS, POD_NS]) await ip('netns', 'delete', ns).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
  expect(await ip('netns', 'list')).not.toContain(POD_NS);
});

/** The environment dhclient gave its script in the file `name`. */
function lease(name: string): Record<string, string> {
  const text = readFileSync(join(envDir, name), 'utf8');
  const pairs = text.split('\n').flatMap((l): [string, string][] => {
    const at = l.indexOf('=');
    return at < 0 ? [] : [[l.slice(0, at), l.slice(at + 1)]];
  });
  return Object.fromEntries(pairs);
}

/**
 * Runs dhclient -6 in the guest's namespace in the foreground (with `flags`) until `done` finds what the test
 * waits for, then stops it. Every file it writes is under the test's directory.
 */
async function dhclient<T>(name: string, flags: string[], done: () => T | undefined): Promise<T> {
  const client = spawn(
    'nsenter',
    [
      `--net=/run/netns/${GUEST_NS}`,
      '--',
      'dhclient',
      '-6',
      '-d',
      '-v',
      ...flags,
      '-cf',
      conf,
      '-sf',
      script,
      '-lf',
      join(stateDir, `${name}.leases`),
      '-pf',
      join(stateDir, `${name}.pid`),
      '-e',
      `LEASE_FILE=${join(envDir, name)}`,
      'eth0',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let clientErr = '';
  client.stderr.on('data', (d: Buffer) => (clientErr += d.toString()));
  try {
    return await waitFor(done, () => `dhclient ${name} configured (its log: ${clientErr})`, {
      timeoutMs: 60_000,
    });
  } finally {
    client.kill('SIGTERM');
  }
}

describe('the DHCPv6 server in a namespace behind the masquerade bridge', () => {
  it("leases the guest fd10:0:2::2 with the Pod's IPv6 DNS server (Solicit, Advertise, Request, Reply)", async () => {
    const bound = join(envDir, 'stateful.BOUND6');
    await dhclient('stateful', ['-N'], () => existsSync(bound) || undefined);
    expect(lease('stateful.BOUND6')).toMatchObject({
      interface: 'eth0',
      new_ip6_address: 'fd10:0:2::2',
      new_preferred_life: '86313600',
      new_max_life: '86313600',
      new_dhcp6_name_servers: 'fd00:10:96::a',
    });
    // KubeVirt sends no search list over DHCPv6.
    expect(lease('stateful.BOUND6')['new_dhcp6_domain_search']).toBeUndefined();
    expect(await ip('-n', GUEST_NS, '-6', 'address', 'show', 'dev', 'eth0')).toContain('fd10:0:2::2');
    // The client's link-local source, seen on the bridge, is where the answer went.
    expect(serverErr).toMatch(
      /"DHCPv6 message answered".*"from":"fe80::[0-9a-f:]+%k6t-eth0".*"type":1,.*"reply":2/,
    );
    expect(serverErr).toMatch(/"DHCPv6 message answered".*"type":3,.*"reply":7/);
    expect(serverErr).not.toContain('"level":"error"');
  }, 90_000);

  it('answers an Information-request with the DNS server (dhclient -S)', async () => {
    const written = (): string | undefined =>
      readdirSync(envDir).find((f) => f.startsWith('stateless.') && !f.endsWith('.tmp'));
    const file = await dhclient('stateless', ['-S'], written);
    expect(lease(file)).toMatchObject({ new_dhcp6_name_servers: 'fd00:10:96::a' });
    expect(serverErr).toMatch(/"DHCPv6 message answered".*"type":11,.*"reply":7/);
  }, 90_000);
});
