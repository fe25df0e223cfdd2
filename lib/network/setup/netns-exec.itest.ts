/**
 * The masquerade plan applied for real (as root) in a network namespace of the test's own, standing for a
 * launcher Pod's: its `eth0` is one end of a veth pair whose other end lives in a second namespace of the test,
 * so neither the host's namespace nor its rules are touched and no packet leaves the two namespaces.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { runCommand } from './command.ts';
import { applyPlan, applyTeardown, listLinks, readPodInterface, supportsLinkType } from './netns-exec.ts';
import { planPodNetwork } from './plan.ts';
import { planTeardown } from './teardown.ts';

const SUFFIX = randomBytes(4).toString('hex');
const POD_NS = `kvts-nettest-${SUFFIX}`;
const PEER_NS = `kvts-nettest-${SUFFIX}-peer`;
const NS_PATH = `/run/netns/${POD_NS}`;
const NETWORK = { name: 'default', pod: {} };
const IFACE = { name: 'default', masquerade: {}, ports: [{ port: 8080 }] };
const HOST_SYSCTLS = ['/proc/sys/net/ipv4/ip_forward', '/proc/sys/net/ipv6/conf/all/forwarding'];

const ip = (...args: string[]): Promise<string> => runCommand(['ip', ...args], '');
const inPod = (...argv: string[]): Promise<string> =>
  runCommand(['nsenter', `--net=${NS_PATH}`, '--', ...argv], '');
const json = async (...argv: string[]): Promise<unknown> => JSON.parse(await inPod(...argv)) as unknown;
const hostSysctls = (): string[] => HOST_SYSCTLS.map((p) => readFileSync(p, 'utf8'));

interface NftItem {
  table?: { family: string; name: string };
  chain?: { family: string; table: string; name: string; hook?: string; prio?: number };
  rule?: { family: string; chain: string; expr: unknown[] };
}

async function ruleset(): Promise<NftItem[]> {
  const out = (await json('nft', '-j', 'list', 'ruleset')) as { nftables: NftItem[] };
  return out.nftables;
}

/** The packets counted by the rules of a chain whose expressions mention all of `words`. */
function counted(items: NftItem[], family: string, chain: string, words: string[]): number[] {
  return items.flatMap(({ rule }) => {
    if (rule?.family !== family || rule.chain !== chain) return [];
    const text = JSON.stringify(rule.expr);
    if (!words.every((w) => text.includes(w))) return [];
    const counter = rule.expr.find((e): e is { counter: { packets: number } } =>
      JSON.stringify(e).startsWith('{"counter"'),
    );
    return [counter?.counter.packets ?? -1];
  });
}

/** The masquerade plan for the namespace's eth0 as it is now. */
async function masqueradePlan(): Promise<ReturnType<typeof planPodNetwork>> {
  const podInterface = await readPodInterface(NS_PATH, 'eth0');
  return planPodNetwork({ podInterface, iface: IFACE, interfaceIndex: 0, network: NETWORK, queues: 2 });
}

const hostBefore = hostSysctls();

beforeAll(async () => {
  await ip('netns', 'add', POD_NS);
  await ip('netns', 'add', PEER_NS);
  // The pair is made inside the peer namespace with its other end sent straight to the Pod's.
  await ip('-n', PEER_NS, 'link', 'add', 'peer0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', POD_NS);
  await ip('-n', PEER_NS, 'address', 'add', '10.244.0.1/24', 'dev', 'peer0');
  await ip('-n', PEER_NS, 'link', 'set', 'peer0', 'up');
  await ip('-n', POD_NS, 'link', 'set', 'lo', 'up');
  await ip('-n', POD_NS, 'link', 'set', 'eth0', 'mtu', '1450', 'up');
  await ip('-n', POD_NS, 'address', 'add', '10.244.0.5/24', 'dev', 'eth0');
  await ip('-n', POD_NS, 'address', 'add', 'fd00:10:244::5/64', 'dev', 'eth0', 'nodad');
  await ip('-n', POD_NS, 'route', 'add', 'default', 'via', '10.244.0.1');
});

afterAll(async () => {
  for (const ns of [POD_NS, PEER_NS]) await ip('netns', 'del', ns).catch(() => undefined);
  const left = (await ip('netns', 'list')).split('\n').filter((l) => l.startsWith(`kvts-nettest-${SUFFIX}`));
  if (left.length > 0) throw new Error(`namespaces left behind: ${left.join(', ')}`);
});

describe('the masquerade plan in a network namespace', () => {
  it('reads the pod interface', async () => {
    const pod = await readPodInterface(NS_PATH, 'eth0');
    expect(pod).toMatchObject({
      name: 'eth0',
      mtu: 1450,
      ipv4: [{ address: '10.244.0.5', prefixLength: 24 }],
      ipv6: expect.arrayContaining([{ address: 'fd00:10:244::5', prefixLength: 64 }]),
      routes: expect.arrayContaining([{ destination: '0.0.0.0/0', gateway: '10.244.0.1' }]),
    });
  });

  it('creates the bridge and the tap, writes the sysctls and the NAT rules', async () => {
    const plan = await masqueradePlan();
    await applyPlan(NS_PATH, plan.steps);

    const links = (await json('ip', '-j', '-d', 'link', 'show')) as Record<string, unknown>[];
    const link = (name: string): Record<string, unknown> | undefined =>
      links.find((l) => l['ifname'] === name);
    expect(link('k6t-eth0')).toMatchObject({
      address: '02:00:00:00:00:00',
      mtu: 1450,
      flags: expect.arrayContaining(['UP']),
    });
    expect(link('tap0')).toMatchObject({
      mtu: 1450,
      master: 'k6t-eth0',
      flags: expect.arrayContaining(['UP']),
      linkinfo: {
        info_kind: 'tun',
        info_data: { type: 'tap', pi: false, vnet_hdr: true, multi_queue: true, user: 107 },
      },
    });
    const addr = (await json('ip', '-j', 'addr', 'show', 'dev', 'k6t-eth0')) as { addr_info: unknown[] }[];
    expect(addr[0]?.addr_info).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ family: 'inet', local: '10.0.2.1', prefixlen: 24 }),
        expect.objectContaining({ family: 'inet6', local: 'fd10:0:2::1', prefixlen: 120 }),
      ]),
    );
    const sysctl = (key: string): Promise<string> => inPod('cat', `/proc/sys/net/${key}`);
    await expect(sysctl('ipv4/ip_forward')).resolves.toBe('1\n');
    await expect(sysctl('ipv6/conf/all/forwarding')).resolves.toBe('1\n');
    await expect(sysctl('ipv4/conf/k6t-eth0/route_localnet')).resolves.toBe('1\n');
    expect(hostSysctls()).toEqual(hostBefore);

    const items = await ruleset();
    for (const family of ['ip', 'ip6']) {
      expect(
        items
          .filter((i) => i.chain?.family === family)
          .map((i) => [i.chain?.name, i.chain?.hook, i.chain?.prio]),
      ).toEqual([
        ['prerouting', 'prerouting', -100],
        ['input', 'input', 100],
        ['output', 'output', -100],
        ['postrouting', 'postrouting', 100],
        ['KUBEVIRT_PREINBOUND', undefined, undefined],
        ['KUBEVIRT_POSTINBOUND', undefined, undefined],
      ]);
    }
    expect(counted(items, 'ip', 'KUBEVIRT_PREINBOUND', ['8080', '10.0.2.2'])).toHaveLength(1);
    expect(counted(items, 'ip6', 'KUBEVIRT_PREINBOUND', ['8080', 'fd10:0:2::2'])).toHaveLength(1);
    expect(counted(items, 'ip', 'KUBEVIRT_POSTINBOUND', ['8080', '127.0.0.1', '10.0.2.1'])).toHaveLength(1);
  });

  it('sends a connection to 127.0.0.1:8080 inside the namespace towards the guest', async () => {
    // Nothing answers behind the tap: the attempt only has to cross the output DNAT rule.
    await inPod('sh', '-c', 'timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/8080" || true');
    const [packets = 0] = counted(await ruleset(), 'ip', 'output', ['8080', '127.0.0.1', '10.0.2.2']);
    expect(packets).toBeGreaterThan(0);
  });

  it('replaces its NAT rules when applied again', async () => {
    const plan = await masqueradePlan();
    const before = (await ruleset()).filter((i) => i.rule !== undefined).length;
    await applyPlan(
      NS_PATH,
      plan.steps.filter((s) => s.kind === 'nat'),
    );
    expect((await ruleset()).filter((i) => i.rule !== undefined)).toHaveLength(before);
  });

  it('tears down the bridge, the tap and the tables, leaving eth0', async () => {
    await applyTeardown(NS_PATH, planTeardown(IFACE, NETWORK, 'eth0'));
    const names = (await listLinks(NS_PATH)).map((l) => l.name);
    expect(names).toContain('eth0');
    expect(names).not.toContain('k6t-eth0');
    expect(names).not.toContain('tap0');
    expect((await ruleset()).filter((i) => i.table !== undefined)).toEqual([]);
    await applyTeardown(NS_PATH, planTeardown(IFACE, NETWORK, 'eth0'));
  });
});

describe('supportsLinkType', () => {
  it('says which link types the kernel makes and leaves no probe link', async () => {
    await expect(supportsLinkType(NS_PATH, 'bridge')).resolves.toBe(true);
    await expect(supportsLinkType(NS_PATH, 'nosuchkind')).resolves.toBe(false);
    expect((await listLinks(NS_PATH)).map((l) => l.name)).not.toContain('kvts-probe');
  });
});
