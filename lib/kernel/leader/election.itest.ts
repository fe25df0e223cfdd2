/**
 * Two candidate processes contend for one Lease on a real kube-apiserver: exactly one leads; kill -9 of the
 * leader → the other leads within two lease durations; SIGTERM of the leader → the lease is released and the
 * other leads well before one lease duration.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { HttpKubeClient } from '../kube/client.ts';
import { loadRestConfig } from '../kube/config.ts';
import { LEASES, NAMESPACES } from '../kube/resources.ts';
import type { Lease } from './lease.ts';
import { waitFor } from '../testing/wait.ts';

const CANDIDATE = fileURLToPath(new URL('./testing/candidate.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Seen {
  event: string;
  identity: string;
  leader?: string;
  at: number;
}

interface Proc {
  id: string;
  child: ChildProcess;
  seen: Seen[];
  exited: Promise<number | null>;
}

const client = new HttpKubeClient(loadRestConfig());
const ns = `leader-itest-${randomBytes(4).toString('hex')}`;
const procs: Proc[] = [];

function startCandidate(id: string, lock: string, leaseMs: number): Proc {
  const args = ['--import', 'tsx', CANDIDATE, '--namespace', ns, '--name', lock, '--identity', id];
  args.push('--lease-ms', String(leaseMs), '--renew-ms', String(leaseMs - 1000), '--retry-ms', '500');
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const seen: Seen[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    seen.push({ ...(JSON.parse(line) as Omit<Seen, 'at'>), at: Date.now() });
  });
  const stderr: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      if (code !== 0 && code !== null)
        process.stderr.write(`candidate ${id} exited ${code}:\n${stderr.join('\n')}\n`);
      resolve(code);
    });
  });
  const p = { id, child, seen, exited };
  procs.push(p);
  return p;
}

const leadingCount = (p: Proc): number => p.seen.filter((s) => s.event === 'leading').length;
const firstLeading = (p: Proc): Seen | undefined => p.seen.find((s) => s.event === 'leading');

/** Starts two candidates and waits for one to lead; returns [leader, follower]. */
async function contend(lock: string, leaseMs: number): Promise<[Proc, Proc]> {
  const a = startCandidate('a', lock, leaseMs);
  const b = startCandidate('b', lock, leaseMs);
  const leader = await waitFor(() => [a, b].find((p) => leadingCount(p) > 0), 'a leader', {
    timeoutMs: 30_000,
  });
  const follower = leader === a ? b : a;
  await waitFor(() => follower.seen.find((s) => s.event === 'new-leader'), 'the follower to see the leader', {
    timeoutMs: 10_000,
  });
  return [leader, follower];
}

beforeAll(async () => {
  await client.create(NAMESPACES, { metadata: { name: ns } });
});

afterEach(async () => {
  for (const p of procs.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await p.exited;
  }
});

afterAll(async () => {
  await client.delete(NAMESPACES, ns);
});

describe('leader election between two processes', () => {
  it('lets exactly one of two candidates lead', async () => {
    const [leader, follower] = await contend('one-leader', 3000);
    await new Promise((resolve) => setTimeout(resolve, 6000)); // two lease durations
    expect(leadingCount(leader)).toBe(1);
    expect(leadingCount(follower)).toBe(0);
    expect(follower.seen.filter((s) => s.event === 'new-leader').map((s) => s.leader)).toEqual([leader.id]);
    const lease = await client.get<Lease>(LEASES, 'one-leader', { namespace: ns });
    expect(lease.spec).toMatchObject({
      holderIdentity: leader.id,
      leaseDurationSeconds: 3,
      leaseTransitions: 0,
    });
  });

  it('fails over within two lease durations when the leader is killed with SIGKILL', async () => {
    const [leader, follower] = await contend('kill-9', 3000);
    const killedAt = Date.now();
    leader.child.kill('SIGKILL');
    const took = await waitFor(() => firstLeading(follower), 'the follower to lead', { timeoutMs: 15_000 });
    expect(took.at - killedAt).toBeLessThan(2 * 3000);
    const lease = await client.get<Lease>(LEASES, 'kill-9', { namespace: ns });
    expect(lease.spec).toMatchObject({ holderIdentity: follower.id, leaseTransitions: 1 });
  });

  it('releases the lease on SIGTERM so the other leads well before one lease duration', async () => {
    const leaseMs = 4000;
    const [leader, follower] = await contend('sigterm', leaseMs);
    const stoppedAt = Date.now();
    leader.child.kill('SIGTERM');
    expect(await leader.exited).toBe(0);
    expect(leader.seen.at(-1)?.event).toBe('stopped');
    const took = await waitFor(() => firstLeading(follower), 'the follower to lead', { timeoutMs: 15_000 });
    // Without the release the follower would wait for the lease to expire: at least leaseMs - retry.
    expect(took.at - stoppedAt).toBeLessThan(leaseMs / 2);
    const lease = await client.get<Lease>(LEASES, 'sigterm', { namespace: ns });
    expect(lease.spec).toMatchObject({ holderIdentity: follower.id, leaseTransitions: 1 });
  });
});
