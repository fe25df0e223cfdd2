/**
 * What a tenant plants in its launcher Pod's emptyDirs, against the handler on the real local cluster (one VM,
 * the handler as a host process for node local with its REST server). The plants are made from the host as
 * root in the Pod's emptyDir dirs under the kubelet's pods dir; the tenant would make them from inside its
 * container, with the same effect on the node. Each is refused with the reason, the host socket it names never
 * gets a connection, and the host file keeps its content, owner and mode:
 * - a symlink at the VMI's serial and VNC sockets: the console is refused with 400 naming it;
 * - the Notify socket the handler made in the `public` emptyDir is a socket of mode 0666 it owns;
 * - a VMI of another namespace whose status.activePods names this VM's launcher Pod: the handler takes no
 *   launcher Pod for it (logged once), so it records no Event on it and leaves it Scheduled, and VM a stays
 *   Running;
 * - a symlink at the command socket: the handler, started again, refuses it; back in place, it is reached;
 * - a symlink at the unresponsive marker: the launcher stopped (SIGSTOP), the VMI Failed, the marker refused.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { lstat, readlink, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachineInstance,
} from '../../lib/kubevirt/index.ts';
import { openStream, StreamReader, vmiPath, type Dial } from '../../lib/handler/rest/testing/client.ts';
import { makeRestPki, type RestPki } from '../../lib/handler/rest/testing/pki.ts';
import { hostTargets, type HostTargets } from '../../lib/handler/testing/planted.ts';
import { EVENTS, NAMESPACES } from '../../lib/kernel/kube/index.ts';
import type { KubeObject } from '../../lib/kernel/kube/types.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';
import { podVolumeOnNode, PRIVATE_VOLUME, PUBLIC_VOLUME, SOCKETS_VOLUME } from '../../lib/rpc/index.ts';
import { MARKER } from '../../testenv/guests/guests.ts';
import { pidsWhere } from './testing/procs.ts';
import { consoleServerFlags, handlerPort, spawnHandler, type HandlerProcess } from './testing/roles.ts';
import { virtSuite } from './testing/suite.ts';
import { NODE_NAME } from './layout.ts';
import { deleteNamespace, exampleVm, kubeletPodsDir } from './virt.ts';

let pki: RestPki | undefined;
const s = virtSuite('handler-paths', {
  handler: true,
  handlerFlags: async (dir) => {
    pki = await makeRestPki();
    return consoleServerFlags(dir, 'handler-paths-pki', pki);
  },
});
function handler(): HandlerProcess {
  if (s.handler === undefined) throw new Error('the suite runs no handler');
  return s.handler;
}

async function consoleDial(): Promise<Dial> {
  const port = await waitFor(() => handlerPort(handler(), 'console server listening'), 'console port');
  if (pki === undefined) throw new Error('the suite made no console certificates');
  return { port, ca: pki.ca.cert, client: pki.client };
}

/** The handler process's log lines with `msg`. */
function logged(msg: string): Record<string, unknown>[] {
  const h = handler();
  return readFileSync(h.logFile)
    .subarray(h.logOffset)
    .toString('utf8')
    .split('\n')
    .flatMap((l) => {
      try {
        const j = JSON.parse(l) as Record<string, unknown>;
        return j['msg'] === msg ? [j] : [];
      } catch {
        return [];
      }
    });
}

let host: HostTargets;
let vmi: VirtualMachineInstance;
let podUid = '';
const volume = (name: string): string => podVolumeOnNode(kubeletPodsDir(s.c.dir), podUid, name);
const getVmi = (): Promise<VirtualMachineInstance> =>
  s.clients.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, 'a', { namespace: s.ns });

beforeAll(async () => {
  host = await hostTargets();
});
afterAll(async () => {
  await host.cleanup();
});

describe('what a tenant plants in its launcher Pod', () => {
  it('a symlink at the serial or VNC socket: the console is refused with the reason', async () => {
    const vm = await exampleVm(s.ns, 'a');
    await s.clients.kv.create(VIRTUAL_MACHINES, { ...vm, spec: { ...vm.spec, runStrategy: 'Once' } });
    vmi = await waitFor(
      async () => {
        const v = await getVmi().catch(() => undefined);
        return v?.status?.phase === 'Running' && v;
      },
      'VMI a Running',
      { timeoutMs: 240_000, intervalMs: 500 },
    );
    podUid = Object.keys(vmi.status?.activePods ?? {})[0] ?? '';
    const dir = join(volume(PRIVATE_VOLUME), vmi.metadata.uid ?? '');
    for (const [route, name] of [
      ['console', 'virt-serial0'],
      ['vnc', 'virt-vnc'],
    ] as const) {
      const at = join(dir, name);
      await rename(at, `${at}.real`);
      await symlink(host.socket, at);
      try {
        await expect(openStream(await consoleDial(), vmiPath(s.ns, 'a', route))).rejects.toMatchObject({
          status: 400,
          text: `refused unix socket ${at}: ${at} is a symbolic link`,
        });
      } finally {
        await rm(at);
        await rename(`${at}.real`, at);
      }
    }
    expect(host.connections).toBe(0);
    expect(logged('console socket refused').map((l) => [l['kind'], l['path']])).toEqual([
      ['console', join(dir, 'virt-serial0')],
      ['vnc', join(dir, 'virt-vnc')],
    ]);
    // The VMI's own socket back in place: its console streams.
    const r = new StreamReader(await openStream(await consoleDial(), vmiPath(s.ns, 'a', 'console')));
    expect(await r.waitFor(MARKER, 30_000)).toContain(MARKER);
    r.ws.close(1000);
    await r.closed;
  }, 360_000);

  it('the Notify socket in the public emptyDir is the handler socket, of mode 0666', async () => {
    const st = await lstat(join(volume(PUBLIC_VOLUME), 'domain-notify.sock'));
    expect([st.isSocket(), st.mode & 0o777, st.uid]).toEqual([true, 0o666, 0]);
    expect(logged('notify socket refused')).toEqual([]);
    expect(logged('notify message dropped')).toEqual([]);
  });

  it('a VMI of another namespace naming this launcher Pod active: the handler never dials it', async () => {
    const ns = `${s.ns}-b`;
    await s.clients.direct.create(NAMESPACES, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    });
    try {
      // The VMI has no status subresource: whoever may write a VMI may write its status as well.
      const forged = await s.clients.kv.create<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachineInstance',
        metadata: { name: 'b', namespace: ns, labels: { 'kubevirt.io/nodeName': NODE_NAME } },
        spec: vmi.spec,
        status: { phase: 'Scheduled', nodeName: NODE_NAME, activePods: { [podUid]: NODE_NAME } },
      });
      const uid = forged.metadata.uid ?? '';
      const refusals = (): Record<string, unknown>[] =>
        logged('launcher pod refused').filter((l) => l['uid'] === uid);
      type Event = KubeObject & { involvedObject?: { uid?: string }; reason?: string; message?: string };
      const eventsOnB = async (): Promise<(string | undefined)[][]> =>
        (await s.clients.direct.list<Event>(EVENTS, { namespace: ns })).items
          .filter((e) => e.involvedObject?.uid === uid)
          .map((e) => [e.reason, e.message]);
      const phaseOfB = async (): Promise<string | undefined> =>
        (await s.clients.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, 'b', { namespace: ns }))
          .status?.phase;
      // The handler has looked at it: it refused the Pod, or (dialling it) recorded an Event or wrote a phase.
      await waitFor(
        async () =>
          refusals().length > 0 || (await eventsOnB()).length > 0 || (await phaseOfB()) !== 'Scheduled',
        'the handler to look at the forged VMI',
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      // It goes on looking at it (every 200 ms while it has no launcher) and never dials one.
      await new Promise((resolve) => setTimeout(resolve, 5000));
      expect(await eventsOnB()).toEqual([]);
      expect(await phaseOfB()).toBe('Scheduled');
      expect(refusals()).toEqual([
        expect.objectContaining({
          level: 'warning',
          namespace: ns,
          reason: `pod ${podUid} is not in the VMI's namespace ${ns}`,
        }),
      ]);
      const a = await getVmi();
      expect([a.status?.phase, a.metadata.uid]).toEqual(['Running', vmi.metadata.uid]);
    } finally {
      await deleteNamespace(s.clients, ns, 60_000);
    }
  }, 120_000);

  it('a symlink at the command socket: the handler, started again, refuses it; back in place, reached', async () => {
    const at = join(volume(SOCKETS_VOLUME), 'launcher-sock');
    await rename(at, `${at}.real`);
    await symlink(host.socket, at);
    try {
      handler().child.kill('SIGKILL');
      await handler().exited;
      s.handler = spawnHandler(s.c.kubeconfig, s.c.dir, s.handlerFlags);
      const refused = await waitFor(
        () => logged('launcher socket refused')[0],
        'the handler to refuse the command socket',
        { timeoutMs: 90_000, intervalMs: 500 },
      );
      expect(refused).toMatchObject({ level: 'warning', path: at, reason: `${at} is a symbolic link` });
      expect(host.connections).toBe(0);
    } finally {
      await rm(at);
      await rename(`${at}.real`, at);
    }
    // Reached again: its per-VMI counters come from the launcher's GetDomainStats.
    await waitFor(
      async () => {
        const port = handlerPort(handler());
        if (port === undefined) return false;
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return text.includes(`kubevirt_vmi_cpu_usage_seconds_total{namespace="${s.ns}",name="a"`);
      },
      'the handler to reach the launcher again',
      { timeoutMs: 90_000, intervalMs: 1000 },
    );
    expect((await getVmi()).status?.phase).toBe('Running');
  }, 240_000);

  it('a symlink at the unresponsive marker: the VMI fails, the marker is refused, the host file unchanged', async () => {
    const before = await host.facts();
    const marker = join(volume(SOCKETS_VOLUME), 'launcher-unresponsive');
    await symlink(host.file, marker);
    const uid = vmi.metadata.uid ?? '';
    const [launcher] = pidsWhere(
      (argv) => argv.some((a) => a.includes(uid)) && argv.some((a) => a.includes('virt.mjs')),
    );
    expect(launcher).toBeDefined();
    // Stopped, not killed: its Pod stays Running, and only the handler's Ping notices.
    process.kill(launcher ?? 0, 'SIGSTOP');
    try {
      // Failed by the handler, whose Ping went unanswered.
      await waitFor(async () => (await getVmi()).status?.phase === 'Failed', 'the VMI to fail', {
        timeoutMs: 120_000,
        intervalMs: 500,
      });
      expect(logged('launcher unresponsive')).toEqual([
        expect.objectContaining({ uid, reason: 'it did not answer Ping' }),
      ]);
      const refused = await waitFor(() => logged('unresponsive marker refused')[0], 'the marker refused');
      expect(refused).toMatchObject({
        level: 'warning',
        path: marker,
        reason: `${marker} is a symbolic link`,
      });
    } finally {
      process.kill(launcher ?? 0, 'SIGCONT');
    }
    expect(await host.facts()).toEqual(before);
    expect(await readlink(marker)).toBe(host.file);
  }, 240_000);
});
