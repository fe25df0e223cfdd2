/**
 * openPodNetns over a /proc of the test's own making (its cgroup files written by the test, its ns/net entries
 * links to a namespace the test made, to our own, or to a regular file): the Pod's namespace is found, opened
 * and usable by netns-exec.ts; what is not another network namespace is refused, a Pod with no process is
 * KV_ERR_LAUNCHER. Runs as root (`ip netns add`); the host's namespace is only ever stat'ed.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { fstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from './command.ts';
import { listLinks } from './netns-exec.ts';
import { openPodNetns } from './pod-netns.ts';

const NS = `kvts-podns-${randomBytes(4).toString('hex')}`;
const root = mkdtempSync(join(tmpdir(), 'kvts-proc-'));
const cgroup = (uid: string): string => `4:memory:/kubepods/besteffort/pod${uid}/${'c'.repeat(64)}\n0::/\n`;

/** A process entry: its cgroup text and what its ns/net names. */
function proc(pid: number, text: string, net: string): void {
  mkdirSync(join(root, String(pid), 'ns'), { recursive: true });
  writeFileSync(join(root, String(pid), 'cgroup'), text);
  symlinkSync(net, join(root, String(pid), 'ns', 'net'));
}

beforeAll(async () => {
  await runCommand(['ip', 'netns', 'add', NS], '');
});

afterAll(async () => {
  await runCommand(['ip', 'netns', 'delete', NS], '').catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
});

describe('openPodNetns', () => {
  it('opens the namespace of the Pod’s first process, which the setup then acts in', async () => {
    const uid = randomUUID();
    proc(4000, cgroup(randomUUID()), `/run/netns/${NS}`);
    proc(3000, cgroup(uid), `/run/netns/${NS}`);
    proc(3500, cgroup(uid), '/proc/self/ns/net');
    const ns = openPodNetns(uid, root);
    try {
      expect(ns.name).toBe(`pod ${uid} (pid 3000)`);
      expect(fstatSync(ns.fd).ino).toBe(statSync(`/run/netns/${NS}`).ino);
      expect((await listLinks(ns)).map((l) => l.name)).toEqual(['lo']);
    } finally {
      ns.close();
    }
  });

  it.each<[string, string, string]>([
    ['our own namespace (a Pod on the host network)', '/proc/self/ns/net', 'own network namespace'],
    ['a regular file put in its place', '/etc/hostname', 'is not a network namespace'],
  ])('refuses %s', (_, net, message) => {
    const uid = randomUUID();
    proc(5000 + Math.floor(Math.random() * 1000), cgroup(uid), net);
    expect(() => openPodNetns(uid, root)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_INVALID', message: expect.stringContaining(message) }),
    );
  });

  it('says so when no process of the Pod runs here', () => {
    const uid = randomUUID();
    const message = `no process of pod ${uid} runs on this node`;
    expect(() => openPodNetns(uid, root)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_LAUNCHER', message }),
    );
  });
});
