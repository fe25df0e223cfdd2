/**
 * Our iptables rules and the removal of everything the node left in iptables. Pure text transforms over
 * `iptables-save` output (tested in iptables.test.ts) plus the few commands that apply them:
 * - KVTS-FORWARD (FORWARD): bridge to bridge is accepted, anything else forwarded into or out of the
 *   bridge is dropped (ip_forward stays 0; this holds even if someone turns it on);
 * - KVTS-OUTPUT (OUTPUT, filter, so after kube-proxy's DNAT): a packet still addressed to the Service
 *   range was not translated and is rejected, so it never leaves the host;
 * - removal: every KVTS-* and KUBE-* chain and each rule that jumps to one, table by table through
 *   iptables-restore (atomic, quoting kept as iptables-save wrote it), for IPv4 and IPv6.
 */
import { attempt, run } from './exec.ts';
import { CHAINS, NETWORK } from './layout.ts';

export type Family = 'ip' | 'ip6';
const save = (f: Family): string => (f === 'ip' ? 'iptables-save' : 'ip6tables-save');
const restore = (f: Family): string => (f === 'ip' ? 'iptables-restore' : 'ip6tables-restore');
const iptables = (f: Family): string => (f === 'ip' ? 'iptables' : 'ip6tables');

/** Chains made by this stack or by the kubelet / kube-proxy it ran. */
const isNodeChain = (name: string): boolean => /^(KUBE-|KVTS-)/.test(name);

function jumpTarget(rule: string): string | undefined {
  return / -[jg] (\S+)/.exec(rule)?.[1];
}

/**
 * One table's iptables-save text without our chains and the rules that use them; undefined when nothing
 * in it is ours (then the table is left alone).
 */
export function withoutNodeChains(saved: string): string | undefined {
  const lines = saved.split('\n');
  const kept = lines.filter((line) => {
    const decl = /^:(\S+) /.exec(line)?.[1];
    const chain = /^-A (\S+) /.exec(line)?.[1];
    const target = line.startsWith('-A ') ? jumpTarget(line) : undefined;
    return ![decl, chain, target].some((n) => n !== undefined && isNodeChain(n));
  });
  return kept.length === lines.length ? undefined : kept.join('\n');
}

/** Tables present in `iptables-save` output (`*filter` lines). */
export function tablesIn(saved: string): string[] {
  return saved
    .split('\n')
    .filter((l) => l.startsWith('*'))
    .map((l) => l.slice(1).trim());
}

/** True when the table has no rule at all (only built-in chains, policy ACCEPT). */
export function isEmptyTable(saved: string): boolean {
  const lines = saved.split('\n');
  return !lines.some((l) => l.startsWith('-A ')) && !lines.some((l) => /^:\S+ (DROP|-)/.test(l));
}

export async function savedTables(f: Family): Promise<string[]> {
  return tablesIn(await run(save(f), []));
}

/** Removes every node chain from every table of the family (atomically per table). */
export async function removeNodeChains(f: Family): Promise<string[]> {
  const touched: string[] = [];
  for (const table of await savedTables(f)) {
    const text = await run(save(f), ['-t', table]);
    const next = withoutNodeChains(text);
    if (next === undefined) continue;
    await run(restore(f), ['-w'], next);
    touched.push(table);
  }
  return touched;
}

/** Deletes tables that were not there before `up` and hold no rule now (iptables-nft leaves them behind). */
export async function removeEmptyTables(f: Family, before: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const table of await savedTables(f)) {
    if (before.includes(table)) continue;
    if (!isEmptyTable(await run(save(f), ['-t', table]))) continue;
    if ((await attempt('nft', ['delete', 'table', f, table])).code === 0) removed.push(table);
  }
  return removed;
}

async function ensureJump(f: Family, from: string, to: string): Promise<void> {
  if ((await attempt(iptables(f), ['-w', '-C', from, '-j', to])).code === 0) return;
  await run(iptables(f), ['-w', '-I', from, '1', '-j', to]);
}

async function freshChain(f: Family, name: string, rules: string[][]): Promise<void> {
  await attempt(iptables(f), ['-w', '-N', name]);
  await run(iptables(f), ['-w', '-F', name]);
  for (const r of rules) await run(iptables(f), ['-w', '-A', name, ...r]);
}

/** Installs KVTS-FORWARD (IPv4 and IPv6) and KVTS-OUTPUT (IPv4). Idempotent. */
export async function installOurChains(): Promise<void> {
  const br = NETWORK.bridge;
  const forward = [
    ['-i', br, '-o', br, '-j', 'ACCEPT'],
    ['-i', br, '-j', 'DROP'],
    ['-o', br, '-j', 'DROP'],
  ];
  for (const f of ['ip', 'ip6'] as const) {
    await freshChain(f, CHAINS.forward, forward);
    await ensureJump(f, 'FORWARD', CHAINS.forward);
  }
  await freshChain('ip', CHAINS.output, [
    ['-d', NETWORK.serviceCidr, '-j', 'REJECT', '--reject-with', 'icmp-net-unreachable'],
  ]);
  await ensureJump('ip', 'OUTPUT', CHAINS.output);
}
