// The Notify endpoint in a launcher Pod's `public` emptyDir, over real unix sockets in a kubelet-like pods dir:
// the socket it makes (mode, a planted symlink, a stale socket, a swap raced against the bind), and what it takes
// from a real Notify client.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { lstat, readlink, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { memoryLogger } from '../../kernel/log/log.ts';
import { testDomain } from '../../rpc/testing/domain.ts';
import { launcherOnNode, newNotifyClient, PUBLIC_VOLUME, type LauncherOnNode } from '../../rpc/index.ts';
import { hostTargets, podDirs, type HostTargets, type PodDirs } from '../testing/planted.ts';
import { cachedPods, launcherPodFor } from '../testing/pods.ts';
import { startNotifyServer, type LauncherEvent, type NotifyServer } from './server.ts';

const NODE = 'node1';
const POD = 'p1';
const vmi = {
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { namespace: 'ns', name: 'vm', uid: 'u' },
  spec: { domain: { devices: {} } },
  status: { nodeName: NODE, activePods: { [POD]: NODE } },
} as VirtualMachineInstance;
const other = {
  ...vmi,
  metadata: { namespace: 'ns', name: 'other', uid: 'u-other' },
} as VirtualMachineInstance;

let pods: PodDirs;
let host: HostTargets;
let launcher: LauncherOnNode;
let notify: NotifyServer;
let logged: ReturnType<typeof memoryLogger>;
const domains: [string, string][] = [];
const events: [string, LauncherEvent][] = [];

const socketPath = (): string => join(pods.volume(PUBLIC_VOLUME), 'domain-notify.sock');

beforeEach(async () => {
  pods = await podDirs(POD, [PUBLIC_VOLUME]);
  host = await hostTargets();
  launcher = launcherOnNode(pods.podsDir, POD);
  logged = memoryLogger();
  domains.length = 0;
  events.length = 0;
  const cache = new Map([
    ['ns/vm', vmi],
    ['ns/other', other],
  ]);
  notify = startNotifyServer({
    node: NODE,
    vmis: { get: (k) => cache.get(k) },
    pods: cachedPods(launcherPodFor(vmi, POD, NODE)),
    log: logged.log,
    events: {
      domainEvent: (v, type) => domains.push([v.metadata.uid ?? '', type]),
      k8sEvent: (v, ev) => events.push([v.metadata.uid ?? '', ev]),
    },
  });
});

afterEach(async () => {
  await notify.close();
  await host.cleanup();
  await pods.cleanup();
});

/** Connects as the launcher's user (107) in a child: EACCES unless the socket lets others write. */
function connectsAs107(path: string): string {
  const script = `require('net').connect(process.argv[1]).on('connect', () => { console.log('connected'); process.exit(0) }).on('error', (e) => { console.log(e.code); process.exit(0) })`;
  return execFileSync(process.execPath, ['-e', script, path], { uid: 107, gid: 107 }).toString().trim();
}

describe('the Notify endpoint in a launcher Pod', () => {
  it('makes a socket of mode 0666 the launcher user reaches, and takes only its own VMI', async () => {
    await notify.listenFor(vmi, launcher);
    const st = await lstat(socketPath());
    expect([st.isSocket(), st.mode & 0o777, st.uid]).toEqual([true, 0o666, process.getuid?.()]);
    expect(connectsAs107(socketPath())).toBe('connected');
    // Once per Pod.
    await notify.listenFor(vmi, launcher);

    const client = await newNotifyClient(socketPath());
    try {
      const send = (uid: string): Promise<{ success: boolean; message: string }> =>
        client.sendDomainEvent({
          eventType: 'MODIFIED',
          domain: testDomain('Running', 'Booted', (d) => (d.ObjectMeta.uid = uid)),
        });
      expect(await send('u')).toEqual({ success: true, message: '' });
      expect(await send('made-up')).toEqual({
        success: false,
        message: "domain event dropped: it names another VMI than this Pod's (u)",
      });
      expect((await send('u-other')).success).toBe(false);
      expect(domains).toEqual([['u', 'MODIFIED']]);

      const event = (uid: string): LauncherEvent => ({
        metadata: { name: 'e' },
        involvedObject: { uid },
        type: 'Warning',
        reason: 'SyncFailed',
        message: 'm',
      });
      expect(await client.sendK8sEvent(event('u-other'))).toMatchObject({ success: false });
      expect(await client.sendK8sEvent(event('u'))).toEqual({ success: true, message: '' });
      expect(events.map(([uid, e]) => [uid, e.reason])).toEqual([['u', 'SyncFailed']]);
    } finally {
      client.close();
    }
    // The first drop is a warning; the reason, never the message's content.
    expect(logged.lines.filter((l) => l['msg'] === 'notify message dropped')[0]).toMatchObject({
      level: 'warning',
      pod: POD,
      uid: 'u',
      kind: 'domain event',
    });
    await notify.stopFor(launcher);
    await expect(lstat(socketPath())).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a symlink planted at its path: the file it names keeps its content, owner and mode', async () => {
    const before = await host.facts();
    await symlink(host.file, socketPath());
    await notify.listenFor(vmi, launcher);
    expect(await host.facts()).toEqual(before);
    expect(await readlink(socketPath())).toBe(host.file);
    const refused = logged.lines.filter((l) => l['msg'] === 'notify socket refused');
    expect(refused).toEqual([
      expect.objectContaining({
        level: 'warning',
        pod: POD,
        path: socketPath(),
        reason: `${socketPath()} is a symbolic link`,
      }),
    ]);
    // Tried again on the next sync, logged once per reason.
    await notify.listenFor(vmi, launcher);
    expect(logged.lines.filter((l) => l['msg'] === 'notify socket refused')).toHaveLength(1);
  });

  it('replaces a stale socket a dead handler left', async () => {
    const script = `require('net').createServer().listen(process.argv[1], () => process.exit(0))`;
    execFileSync(process.execPath, ['-e', script, socketPath()]);
    await notify.listenFor(vmi, launcher);
    const client = await newNotifyClient(socketPath());
    client.close();
    expect((await lstat(socketPath())).mode & 0o777).toBe(0o666);
  });

  it('never changes a host file when the socket is swapped for a symlink to it while it is bound', async () => {
    const before = await host.facts();
    const dir = pods.volume(PUBLIC_VOLUME);
    // A tenant racing the handler: the socket's name swapped for a symlink to the host file, over and over.
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const swapper = new Worker(
      `const { workerData: w } = require('node:worker_threads');
       const fs = require('node:fs');
       const stop = new Int32Array(w.stop);
       while (Atomics.load(stop, 0) === 0) {
         try { fs.symlinkSync(w.target, w.dir + '/.swap'); fs.renameSync(w.dir + '/.swap', w.dir + '/domain-notify.sock'); } catch {}
       }`,
      { eval: true, workerData: { stop: stop.buffer, target: host.file, dir } },
    );
    try {
      for (let i = 0; i < 300 && (await host.facts()).mode === before.mode; i++) {
        await notify.listenFor(vmi, launcher);
        await notify.stopFor(launcher);
      }
    } finally {
      Atomics.store(stop, 0, 1);
      await swapper.terminate();
    }
    expect(await host.facts()).toEqual(before);
    // The race was run: the handler met the swapped name.
    expect(logged.lines.some((l) => l['msg'] === 'notify socket refused')).toBe(true);
  }, 60_000);
});
