// A VMI whose status.activePods names another tenant's launcher Pod on the node (the VMI has no status
// subresource: whoever may update it may write that), over a kubelet-like pods dir holding both tenants' Pods
// and real sockets: the victim's command socket (a real Cmd server behind a connection count) gets no
// connection from the attacker's launcher clients or console resolver, the attacker reaches its own launcher
// only, and no Notify endpoint takes the attacker's events from the victim's Pod.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { realClock } from '../../kernel/clock.ts';
import { memoryLogger } from '../../kernel/log/log.ts';
import {
  launcherOnNode,
  newCmdServer,
  newNotifyClient,
  ok,
  PRIVATE_VOLUME,
  PUBLIC_VOLUME,
  SOCKETS_VOLUME,
  type CmdHandlers,
} from '../../rpc/index.ts';
import { testDomain } from '../../rpc/testing/domain.ts';
import { serve, type Serving } from '../../rpc/testing/servers.ts';
import { isRestError } from '../rest/errors.ts';
import { nodeResolver } from '../rest/resolve.ts';
import { startNotifyServer, type NotifyServer } from '../notify/server.ts';
import { countingSocket, podDirs, type CountingSocket, type PodDirs } from '../testing/planted.ts';
import { cachedPods, launcherPodFor } from '../testing/pods.ts';
import { LauncherClients } from './clients.ts';

const NODE = 'node1';

function vmiOf(namespace: string, uid: string, activePods: Record<string, string>): VirtualMachineInstance {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { namespace, name: 'vm', uid },
    spec: { domain: { devices: {} } },
    status: { nodeName: NODE, activePods },
  };
}

const victim = vmiOf('tenant-b', 'ub', { pv: NODE });
/** Its own launcher Pod pa first, the victim's pv written after it (the newest, as KubeVirt would take it). */
const attacker = vmiOf('tenant-a', 'ua', { pa: NODE, pv: NODE });
/** Only the victim's Pod. */
const squatter = vmiOf('tenant-a', 'us', { pv: NODE });
const cache = new Map([
  ['tenant-b/vm', victim],
  ['tenant-a/vm', attacker],
]);
const pods = cachedPods(launcherPodFor(victim, 'pv', NODE), launcherPodFor(attacker, 'pa', NODE));

let dirs: PodDirs;
let victimSocket: CountingSocket;
let servers: Serving[];
/** What each launcher's Cmd server was asked: [launcher, RPC, VMI uid]. */
let calls: [string, string, string][];
let logged: ReturnType<typeof memoryLogger>;
let clients: LauncherClients;

/** A VMI request as the Cmd server decodes it. */
type VmiRequest = { readonly vmi?: { readonly vmiJson: Uint8Array } | undefined };

function recording(launcher: string): CmdHandlers {
  const vmiUid = (req: VmiRequest): string =>
    (JSON.parse(Buffer.from(req.vmi?.vmiJson ?? []).toString() || '{}') as { metadata?: { uid?: string } })
      .metadata?.uid ?? '';
  const record = (rpc: string) => (req: VmiRequest) => {
    calls.push([launcher, rpc, vmiUid(req)]);
    return Promise.resolve(ok());
  };
  return {
    ping: () => Promise.resolve(ok()),
    syncVirtualMachine: record('SyncVirtualMachine'),
    pauseVirtualMachine: record('PauseVirtualMachine'),
  };
}

beforeEach(async () => {
  dirs = await podDirs('pv', [SOCKETS_VOLUME, PRIVATE_VOLUME, PUBLIC_VOLUME]);
  const attackerVolume = await dirs.addPod('pa', [SOCKETS_VOLUME, PRIVATE_VOLUME, PUBLIC_VOLUME]);
  calls = [];
  const victimReal = join(dirs.volume(SOCKETS_VOLUME), 'real-sock');
  servers = [
    await serve(newCmdServer(recording('victim')), victimReal),
    await serve(newCmdServer(recording('attacker')), join(attackerVolume(SOCKETS_VOLUME), 'launcher-sock')),
  ];
  victimSocket = await countingSocket(join(dirs.volume(SOCKETS_VOLUME), 'launcher-sock'), victimReal);
  logged = memoryLogger('virt-handler');
  clients = new LauncherClients({
    node: NODE,
    kubeletPodsDir: dirs.podsDir,
    pods,
    clock: realClock,
    log: logged.log,
  });
});

afterEach(async () => {
  clients.closeAll();
  await victimSocket.close();
  for (const s of servers) await s.stop();
  await dirs.cleanup();
});

const refusedLines = (): Record<string, unknown>[] =>
  logged.lines.filter((l) => l['msg'] === 'launcher pod refused');

describe("a VMI whose activePods names another tenant's launcher Pod", () => {
  it('reaches its own launcher only: the launcher clients and the console never dial the victim', async () => {
    expect(await (await clients.client(attacker))?.syncVirtualMachine(attacker)).toEqual(ok());
    const resolver = nodeResolver({ vmis: { get: (k) => cache.get(k) }, launchers: clients });
    const launcher = await resolver.launcher(attacker);
    if (isRestError(launcher)) throw new Error(`no launcher: ${launcher.message}`);
    expect(await launcher.vmiCommand('pauseVirtualMachine', attacker)).toEqual(ok());
    expect(victimSocket.connections).toBe(0);
    expect(calls).toEqual([
      ['attacker', 'SyncVirtualMachine', 'ua'],
      ['attacker', 'PauseVirtualMachine', 'ua'],
    ]);
    expect(clients.paths(attacker)?.podUid).toBe('pa');
    expect(resolver.socket(attacker, 'console')).toMatchObject({
      status: 400,
      message: expect.stringContaining(join(dirs.podsDir, 'pa', 'volumes')),
    });
    // The victim's own VMI reaches its launcher through the same socket.
    expect(await (await clients.client(victim))?.syncVirtualMachine(victim)).toEqual(ok());
    expect(victimSocket.connections).toBe(1);
    expect(calls.at(-1)).toEqual(['victim', 'SyncVirtualMachine', 'ub']);
    expect(refusedLines()).toEqual([]);
  });

  it('with only the victim Pod listed, has no launcher Pod here, logged once', async () => {
    const resolver = nodeResolver({ vmis: { get: () => squatter }, launchers: clients });
    for (let i = 0; i < 3; i++) {
      expect(clients.paths(squatter)).toBeUndefined();
      expect(await clients.client(squatter)).toBeUndefined();
      expect(await clients.probe(squatter)).toEqual({ initialized: false, unresponsive: false });
      expect(await resolver.launcher(squatter)).toEqual({
        status: 500,
        message: 'No command socket found for vmi us',
      });
      expect(resolver.socket(squatter, 'vnc')).toMatchObject({ status: 400 });
    }
    expect(victimSocket.connections).toBe(0);
    expect(calls).toEqual([]);
    expect(refusedLines()).toEqual([
      expect.objectContaining({
        level: 'warning',
        uid: 'us',
        namespace: 'tenant-a',
        reason: "pod pv is not in the VMI's namespace tenant-a",
      }),
    ]);
  });
});

describe("Notify in the victim's launcher Pod", () => {
  let notify: NotifyServer;
  let accepted: string[];

  beforeEach(() => {
    accepted = [];
    notify = startNotifyServer({
      node: NODE,
      vmis: { get: (k) => cache.get(k) },
      pods,
      log: logged.log,
      events: {
        domainEvent: (v) => accepted.push(v.metadata.uid ?? ''),
        k8sEvent: (v) => accepted.push(v.metadata.uid ?? ''),
      },
    });
  });
  afterEach(async () => {
    await notify.close();
  });

  /** Sends a domain event naming `uid` to the Notify socket of Pod `pod`. */
  async function send(pod: string, uid: string): Promise<boolean> {
    const at = join(launcherOnNode(dirs.podsDir, pod).notifySocket.root, 'domain-notify.sock');
    const client = await newNotifyClient(at);
    try {
      const domain = testDomain('Running', 'Booted', (d) => (d.ObjectMeta.uid = uid));
      return (await client.sendDomainEvent({ eventType: 'MODIFIED', domain })).success;
    } finally {
      client.close();
    }
  }

  it("serves each VMI in its own Pod, where the attacker's events are not taken", async () => {
    // As the VMI controller does: Notify in the launcher Pod LauncherClients finds for each VMI.
    for (const v of [attacker, victim]) {
      const paths = clients.paths(v);
      if (paths !== undefined) await notify.listenFor(v, paths);
    }
    expect(await send('pv', 'ua')).toBe(false);
    expect(await send('pv', 'ub')).toBe(true);
    expect(await send('pa', 'ua')).toBe(true);
    expect(accepted).toEqual(['ub', 'ua']);
  });

  it("takes no event for the attacker's VMI from the victim's Pod, even bound there for it", async () => {
    await notify.listenFor(attacker, launcherOnNode(dirs.podsDir, 'pv'));
    expect(await send('pv', 'ua')).toBe(false);
    expect(accepted).toEqual([]);
    expect(logged.lines.find((l) => l['msg'] === 'notify message dropped')).toMatchObject({
      pod: 'pv',
      uid: 'ua',
      reason: "pod pv is not in the VMI's namespace tenant-a",
    });
  });
});
