// A launcher that floods the handler with domain events of made-up VMIs: a real Notify client in a child process
// sends 10,000 of them (8 KiB each) over the real unix socket of the launcher Pod's endpoint, wired to the store
// as the handler wires it. The store keeps only the Pod's own VMI, stays within its cap, and this process's heap
// stays flat (a generous bound). The RSS is not judged: the 80 MiB of buffers the socket took in leave it high
// for a while whether or not the events were kept, by as much as the heap bound tells apart.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import { launcherOnNode, podPathText, PUBLIC_VOLUME } from '../../rpc/index.ts';
import { podDirs, type PodDirs } from '../testing/planted.ts';
import { cachedPods, launcherPodFor } from '../testing/pods.ts';
import { NotifiedDomains } from './domains.ts';
import { startNotifyServer, type NotifyServer } from './server.ts';

const CLIENT = fileURLToPath(new URL('./testing/flood-client.ts', import.meta.url));
const EVENTS = 10_000;
const PAD = 8 * 1024;
const CAP = 64;
const MiB = 1024 * 1024;

const vmi = {
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { namespace: 'ns', name: 'vm', uid: 'u' },
  spec: { domain: { devices: {} } },
  status: { nodeName: 'node1', activePods: { p1: 'node1' } },
} as VirtualMachineInstance;

/** The V8 heap in use after a full garbage collection (gc exposed for the measure only). */
function settled(): { heap: number } {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return { heap: process.memoryUsage().heapUsed };
}

let pods: PodDirs;
let notify: NotifyServer;
const notified = new NotifiedDomains(CAP);

beforeAll(async () => {
  pods = await podDirs('p1', [PUBLIC_VOLUME]);
  notify = startNotifyServer({
    node: 'node1',
    vmis: { get: (k) => (k === 'ns/vm' ? vmi : undefined) },
    pods: cachedPods(launcherPodFor(vmi, 'p1', 'node1')),
    log: nopLogger,
    events: {
      domainEvent: (v, _type, domain) => {
        notified.note(v.metadata.uid ?? '', domain);
      },
      k8sEvent: () => undefined,
    },
  });
});

afterAll(async () => {
  await notify.close();
  await pods.cleanup();
});

describe('a launcher flooding Notify with made-up VMIs', () => {
  it('leaves the store with its own VMI only, within the cap, and the heap flat', async () => {
    const launcher = launcherOnNode(pods.podsDir, 'p1');
    await notify.listenFor(vmi, launcher);
    const flood = async (events: number): Promise<unknown> => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', CLIENT, podPathText(launcher.notifySocket), String(events), 'u', String(PAD)],
        { timeout: 120_000 },
      );
      return JSON.parse(stdout);
    };
    // A first flood grows the heap to its working size; the second must not grow it further.
    await flood(1_000);
    const before = settled();
    expect(await flood(EVENTS)).toEqual({ accepted: EVENTS / 1000, dropped: EVENTS - EVENTS / 1000 });
    const after = settled();
    expect(notified.uids()).toEqual(['u']);
    expect(notified.uids().length).toBeLessThanOrEqual(CAP);
    // Kept, the events would be 80 MiB of strings alone (without the filter: heap +81 MiB).
    expect((after.heap - before.heap) / MiB).toBeLessThan(16);
  }, 150_000);
});
