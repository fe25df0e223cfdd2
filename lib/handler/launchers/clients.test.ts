// The launcher clients over a kubelet-like pods dir and a real Cmd server in the Pod's `sockets` emptyDir: what a
// tenant plants there at the command socket or the unresponsive marker is refused with the reason; the host
// socket or file it names is never reached or changed.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { lstat, readlink, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { realClock } from '../../kernel/clock.ts';
import { memoryLogger } from '../../kernel/log/log.ts';
import { newCmdServer, ok, SOCKETS_VOLUME } from '../../rpc/index.ts';
import { serve, type Serving } from '../../rpc/testing/servers.ts';
import { hostTargets, podDirs, type HostTargets, type PodDirs } from '../testing/planted.ts';
import { cachedPods, launcherPodFor } from '../testing/pods.ts';
import { LauncherClients, UNRESPONSIVE_MARKER } from './clients.ts';

const NODE = 'node1';
const vmi = {
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { namespace: 'ns', name: 'vm', uid: 'u1' },
  spec: { domain: { devices: {} } },
  status: { nodeName: NODE, activePods: { p1: NODE } },
} as VirtualMachineInstance;

let pods: PodDirs;
let host: HostTargets;
let launcher: Serving;
let logged: ReturnType<typeof memoryLogger>;
let clients: LauncherClients;

const sockets = (name: string): string => join(pods.volume(SOCKETS_VOLUME), name);
const logs = (msg: string): Record<string, unknown>[] => logged.lines.filter((l) => l['msg'] === msg);

beforeEach(async () => {
  pods = await podDirs('p1', [SOCKETS_VOLUME]);
  host = await hostTargets();
  launcher = await serve(newCmdServer({ ping: () => Promise.resolve(ok()) }), sockets('launcher-sock'));
  logged = memoryLogger('virt-handler');
  clients = new LauncherClients({
    node: NODE,
    kubeletPodsDir: pods.podsDir,
    pods: cachedPods(launcherPodFor(vmi, 'p1', NODE)),
    clock: realClock,
    log: logged.log,
    unresponsiveAfterMs: 0,
  });
});

afterEach(async () => {
  clients.closeAll();
  await launcher.stop();
  await host.cleanup();
  await pods.cleanup();
});

describe('LauncherClients in the launcher Pod', () => {
  it('refuses a symlink planted at the command socket to a host socket, which never gets a connection', async () => {
    await rename(sockets('launcher-sock'), sockets('real-sock'));
    await symlink(host.socket, sockets('launcher-sock'));
    expect(await clients.client(vmi)).toBeUndefined();
    expect(await clients.client(vmi)).toBeUndefined();
    expect(host.connections).toBe(0);
    expect(logs('launcher socket refused')).toEqual([
      expect.objectContaining({
        level: 'warning',
        uid: 'u1',
        path: sockets('launcher-sock'),
        reason: `${sockets('launcher-sock')} is a symbolic link`,
      }),
    ]);
    expect(clients.reach(vmi)).toEqual({ initialized: false, unresponsive: false });
    // The launcher's own socket back in place: reached.
    await rename(sockets('real-sock'), sockets('launcher-sock'));
    expect(await (await clients.client(vmi))?.ping()).toEqual({ success: true, message: '' });
  });

  it('dials once when asked together, so no client (and no socket handle) is left unclosed', async () => {
    const [a, b] = await Promise.all([clients.client(vmi), clients.client(vmi)]);
    expect(a).toBeDefined();
    expect(b).toBe(a);
  });

  it('marks an unresponsive launcher with an empty marker of its own making', async () => {
    expect(await clients.probe(vmi)).toMatchObject({ initialized: true, unresponsive: false });
    await launcher.stop();
    expect(await clients.probe(vmi)).toMatchObject({ initialized: true, unresponsive: true });
    const marker = await lstat(sockets(UNRESPONSIVE_MARKER));
    expect([marker.isFile(), marker.size, marker.mode & 0o777]).toEqual([true, 0, 0o644]);
  });

  it('refuses a symlink planted at the marker: the file it names keeps its content, owner and mode', async () => {
    const before = await host.facts();
    await symlink(host.file, sockets(UNRESPONSIVE_MARKER));
    expect(await clients.probe(vmi)).toMatchObject({ initialized: true });
    await launcher.stop();
    expect(await clients.probe(vmi)).toMatchObject({ unresponsive: true });
    expect(await host.facts()).toEqual(before);
    expect(await readlink(sockets(UNRESPONSIVE_MARKER))).toBe(host.file);
    expect(logs('unresponsive marker refused')).toEqual([
      expect.objectContaining({
        level: 'warning',
        uid: 'u1',
        path: sockets(UNRESPONSIVE_MARKER),
        reason: `${sockets(UNRESPONSIVE_MARKER)} is a symbolic link`,
      }),
    ]);
  });

  it('takes a Running VMI whose launcher died before this handler reached it as unresponsive', async () => {
    const running = { ...vmi, status: { ...vmi.status, phase: 'Running' } } as VirtualMachineInstance;
    await launcher.stop();
    // The socket file left behind refuses connections: unresponsive once failing lasted (here at once).
    expect(await clients.probe(running)).toMatchObject({ initialized: false });
    expect(clients.reach(running)).toEqual({ initialized: false, unresponsive: true });
    clients.forget('u1');
    // The socket gone with the Pod's volumes: unresponsive at once.
    await rm(sockets('launcher-sock'), { force: true });
    await clients.probe(running);
    expect(clients.reach(running)).toEqual({ initialized: false, unresponsive: true });
    // A VMI not Running yet whose launcher has not started: only not answering yet.
    clients.forget('u1');
    await clients.probe(vmi);
    expect(clients.reach(vmi)).toEqual({ initialized: false, unresponsive: false });
    // Nor is a migration target's launcher that has not started, its VMI Running on the source node.
    clients.forget('u1');
    const migrating = {
      ...vmi,
      status: { ...vmi.status, phase: 'Running', nodeName: 'source-node' },
    } as VirtualMachineInstance;
    await clients.probe(migrating);
    expect(clients.reach(migrating)).toEqual({ initialized: false, unresponsive: false });
  });

  it('refuses a symlink at a Running VMI’s socket without giving its launcher up: back in place, it is reached', async () => {
    const running = { ...vmi, status: { ...vmi.status, phase: 'Running' } } as VirtualMachineInstance;
    await rename(sockets('launcher-sock'), sockets('real-sock'));
    await symlink(host.socket, sockets('launcher-sock'));
    await clients.probe(running);
    expect(clients.reach(running)).toEqual({ initialized: false, unresponsive: false });
    await rm(sockets('launcher-sock'));
    await rename(sockets('real-sock'), sockets('launcher-sock'));
    expect(await clients.probe(running)).toMatchObject({ initialized: true, unresponsive: false });
  });
});
