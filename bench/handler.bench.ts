/**
 * The handler on the local cluster (`npm run bench -- handler`), as a host process for node local with the
 * controller in this process, with GUESTS tiny guests under TCG created one after another:
 * - its added latency per VMI: from the VMI being Scheduled with its launcher listening (the Pod is Ready a
 *   little before the launcher answers; the bench polls the socket) to Running, minus the launcher's own
 *   SyncVirtualMachine time (the handler logs each sync's duration);
 * - its RSS and CPU at rest with every guest running;
 * - console throughput from a guest through the REST server (mutual TLS, websocket) against a direct
 *   connection to the same serial socket, the guest printing the same output each time.
 * It uses the local stack (brought up when it is down; left as it found it).
 */
import { readFile } from 'node:fs/promises';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachineInstance,
} from '../lib/kubevirt/index.ts';
import type { Pod } from '../lib/kubevirt/core/pod.ts';
import { openStream, StreamReader, vmiPath } from '../lib/handler/rest/testing/client.ts';
import { makeRestPki, type RestPki } from '../lib/handler/rest/testing/pki.ts';
import { NAMESPACES, PODS } from '../lib/kernel/kube/index.ts';
import { nopLogger } from '../lib/kernel/log/log.ts';
import { waitFor } from '../lib/kernel/testing/wait.ts';
import { launcherSocketOnNode, newCmdClient } from '../lib/rpc/index.ts';
import { down, status, up } from '../e2e/local/cluster.ts';
import { layout } from '../e2e/local/layout.ts';
import {
  consoleServerFlags,
  controllerHere,
  handlerPort,
  spawnHandler,
  stopHandler,
} from '../e2e/local/testing/roles.ts';
import {
  exampleVm,
  kubeletPodsDir,
  readSerial,
  prepareForVirt,
  virtClients,
  type VirtClients,
} from '../e2e/local/virt.ts';
import { newNamespaceName } from '../testenv/handle.ts';
import { percentile, procStat } from './stats.ts';
import type { BenchContext, BenchRow } from './table.ts';

const GUESTS = 20;
const REST_S = 30;
/** What the guest prints for the throughput runs: 4000 lines of 64 bytes. */
const FLOOD =
  'i=0; while [ $i -lt 4000 ]; do echo 0123456789abcdef0123456789abcdef0123456789abcdef0123456789a; i=$((i+1)); done; echo FLOOD-$((40+2))-DONE';
const FLOOD_DONE = 'FLOOD-42-DONE';

/** Scheduled and Running seen per VMI name, from a watch (ms timestamps here). */
function watchPhases(c: VirtClients, ns: string, signal: AbortSignal): Map<string, Record<string, number>> {
  const seen = new Map<string, Record<string, number>>();
  void (async (): Promise<void> => {
    for await (const ev of c.kv.watch<VirtualMachineInstance>(
      VIRTUAL_MACHINE_INSTANCES,
      { namespace: ns },
      signal,
    )) {
      if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') continue;
      const phase = ev.object.status?.phase;
      const name = ev.object.metadata.name ?? '';
      const at = seen.get(name) ?? {};
      if (phase !== undefined && at[phase] === undefined) at[phase] = Date.now();
      seen.set(name, at);
    }
  })().catch(() => undefined);
  return seen;
}

/** The handler's "launcher synced" durations by VMI name, from its log. */
async function syncMs(logFile: string, offset: number): Promise<Map<string, number>> {
  const text = (await readFile(logFile)).subarray(offset).toString('utf8');
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    try {
      const j = JSON.parse(line) as { msg?: string; name?: string; ms?: number };
      if (j.msg === 'launcher synced' && j.name !== undefined && j.ms !== undefined && !out.has(j.name))
        out.set(j.name, j.ms);
    } catch {
      // not a log line
    }
  }
  return out;
}

/** Bytes per second of the guest's FLOOD through `open` (which types the command and collects the output). */
async function floodRate(run: (send: string) => Promise<number>): Promise<number> {
  const t = Date.now();
  const bytes = await run(FLOOD);
  return bytes / ((Date.now() - t) / 1000);
}

/** The guest's FLOOD read straight from its serial socket (the launcher Pod's private emptyDir). */
function direct(o: { podUid: string; vmiUid: string }): (send: string) => Promise<number> {
  return async (send) => (await readSerial({ ...o, send, until: FLOOD_DONE, timeoutMs: 120_000 })).length;
}

function throughHandler(
  port: number,
  pki: RestPki,
  ns: string,
  name: string,
): (send: string) => Promise<number> {
  return async (send) => {
    const ws = await openStream({ port, ca: pki.ca.cert, client: pki.client }, vmiPath(ns, name, 'console'));
    await new Promise((r) => setTimeout(r, 300));
    const reader = new StreamReader(ws);
    const before = reader.bytes();
    ws.send(Buffer.from(`${send}\n`));
    await reader.waitFor(FLOOD_DONE, 120_000);
    const bytes = reader.bytes() - before;
    ws.close(1000);
    await reader.closed;
    return bytes;
  };
}

/** Creates the guests one after another; when each one's launcher first answered (after its VMI was Scheduled). */
async function startGuests(
  c: VirtClients,
  ns: string,
  names: readonly string[],
  o: { phases: Map<string, Record<string, number>>; ctx: BenchContext },
): Promise<Map<string, number>> {
  const { phases, ctx } = o;
  const listening = new Map<string, number>();
  for (const name of names) {
    await c.kv.create(VIRTUAL_MACHINES, await exampleVm(ns, name));
    await waitFor(() => phases.get(name)?.['Scheduled'] !== undefined, `${name} Scheduled`, {
      timeoutMs: 300_000,
      intervalMs: 10,
    });
    // The clock starts once the launcher listens too (its Pod is Ready a little before).
    const vmi = await c.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, name, { namespace: ns });
    const podUid = Object.keys(vmi.status?.activePods ?? {})[0] ?? '';
    const client = await waitFor(
      () => newCmdClient(launcherSocketOnNode(kubeletPodsDir(), podUid)).catch(() => false as const),
      `${name}'s launcher`,
      { timeoutMs: 60_000, intervalMs: 10 },
    );
    listening.set(name, Date.now());
    client.close();
    await waitFor(() => phases.get(name)?.['Running'] !== undefined, `${name} Running`, {
      timeoutMs: 300_000,
      intervalMs: 10,
    });
    ctx.log(`handler: ${name} running`);
  }
  return listening;
}

export default async function handlerBench(ctx: BenchContext): Promise<BenchRow[]> {
  const wasUp = (await status())?.ready === true;
  const cluster = await up({ log: nopLogger });
  const c = virtClients(cluster.kubeconfig, 'kubevirt-ts/bench-handler');
  const ns = newNamespaceName('bench-handler');
  const stop = new AbortController();
  await prepareForVirt(c);
  await c.direct.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const controller = controllerHere(cluster.kubeconfig, ns);
  const pki = await makeRestPki();
  const handler = spawnHandler(
    cluster.kubeconfig,
    undefined,
    await consoleServerFlags(layout().dir, 'handler-bench-pki', pki),
  );
  try {
    const phases = watchPhases(c, ns, stop.signal);
    const names = Array.from({ length: GUESTS }, (_, i) => `g${String(i).padStart(2, '0')}`);
    const listening = await startGuests(c, ns, names, { phases, ctx });
    const synced = await syncMs(handler.logFile, handler.logOffset);
    const added = names.flatMap((n) => {
      const at = phases.get(n) ?? {};
      const s = synced.get(n);
      const ready = Math.max(at['Scheduled'] ?? Infinity, listening.get(n) ?? Infinity);
      return at['Running'] !== undefined && Number.isFinite(ready) && s !== undefined
        ? [at['Running'] - ready - s]
        : [];
    });
    const syncs = [...synced.values()];
    // At rest: every guest running, nothing changing.
    await new Promise((r) => setTimeout(r, 10_000));
    const pid = handler.child.pid ?? 0;
    const a = await procStat(pid);
    await new Promise((r) => setTimeout(r, REST_S * 1000));
    const b = await procStat(pid);
    const cpuPct = ((b.cpuTicks - a.cpuTicks) / 100 / REST_S) * 100;
    // Console throughput: the same guest output, straight from the serial socket and through the handler.
    const vmi = await c.kv.get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, 'g00', { namespace: ns });
    const pods = await c.kv.list<Pod>(PODS, {
      namespace: ns,
      labelSelector: `kubevirt.io/created-by=${vmi.metadata.uid ?? ''}`,
    });
    const serial = { podUid: pods.items[0]?.metadata.uid ?? '', vmiUid: vmi.metadata.uid ?? '' };
    const port = await waitFor(() => handlerPort(handler, 'console server listening'), 'console port');
    await floodRate(direct(serial)); // warm-up: the guest's shell and page cache
    const directRates: number[] = [];
    const handlerRates: number[] = [];
    for (let i = 0; i < 3; i++) {
      directRates.push(await floodRate(direct(serial)));
      handlerRates.push(await floodRate(throughHandler(port, pki, ns, 'g00')));
    }
    const d = percentile(directRates, 50);
    const h = percentile(handlerRates, 50);
    return [
      {
        name: `handler added latency Scheduled → Running, p50 over ${added.length}`,
        value: percentile(added, 50),
        unit: 'ms',
        note: 'target < 200',
      },
      { name: 'handler added latency, max', value: Math.max(...added), unit: 'ms' },
      {
        name: "launcher's own SyncVirtualMachine, p50",
        value: percentile(syncs, 50),
        unit: 'ms',
        note: 'subtracted above',
      },
      { name: `handler RSS at rest, ${GUESTS} guests running`, value: b.rssMiB, unit: 'MiB' },
      {
        name: `handler CPU at rest, ${GUESTS} guests running`,
        value: cpuPct,
        unit: '% of a core',
        note: `${REST_S} s`,
      },
      {
        name: 'console from a guest: direct serial socket',
        value: d / 1024,
        unit: 'KiB/s',
        note: 'median of 3',
      },
      {
        name: 'console from a guest: through the handler',
        value: h / 1024,
        unit: 'KiB/s',
        note: 'median of 3',
      },
      {
        name: 'console throughput ratio (handler / direct)',
        value: h / d,
        unit: 'ratio',
        note: 'target ≥ 0.8',
      },
    ];
  } finally {
    stop.abort();
    await c.direct.delete(NAMESPACES, ns).catch(() => undefined);
    await waitFor(async () => (await c.kv.list(PODS, { namespace: ns })).items.length === 0, 'Pods gone', {
      timeoutMs: 300_000,
    }).catch(() => undefined);
    await stopHandler(handler);
    await controller.stop();
    await c.close();
    if (!wasUp) await down({ log: nopLogger });
  }
}
