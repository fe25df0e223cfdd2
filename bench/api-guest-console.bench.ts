/**
 * `npm run bench -- api`, on the local cluster: the console path a user takes — a websocket to kube-apiserver,
 * the aggregation layer to the api, mutual TLS to the handler's REST server, the launcher's serial socket —
 * against a direct connection to that same socket on the node, to a real guest (the example VM under TCG) in
 * one run. Throughput: the guest's shell writes BYTES to its serial port (so the guest's UART under TCG is the
 * ceiling, not the path); round trip: one key typed and its echo seen. A third path is `virtctl-ts console`
 * (the CLI a person runs: the same kube-apiserver path plus its process, fed through stdin and stdout). The
 * paths take turns (the console admits one session); medians. It runs the roles as `./dev run` does (e2e/local/virt-stack.ts) and takes the
 * local stack as the tests do (brought up if down, left as found).
 */
import { spawn } from 'node:child_process';
import { WebSocket } from 'ws';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachineInstance,
} from '../lib/kubevirt/index.ts';
import type { Pod } from '../lib/kubevirt/core/pod.ts';
import { loadRestConfig, PODS, type RestConfig } from '../lib/kernel/kube/index.ts';
import { waitFor } from '../lib/kernel/testing/wait.ts';
import { realClock } from '../lib/kernel/clock.ts';
import { connectBeneath } from '../lib/kernel/safepath/index.ts';
import { launcherOnNode, type PodPath } from '../lib/rpc/index.ts';
import { MARKER } from '../testenv/guests/guests.ts';
import { consoleUrl } from '../e2e/local/api-console.ts';
import { useLocalCluster } from '../e2e/local/testing/cluster.ts';
import { ensureNamespace } from '../e2e/local/virt-install.ts';
import {
  deleteNamespace,
  exampleVm,
  kubeletPodsDir,
  readSerial,
  virtClients,
  type VirtClients,
} from '../e2e/local/virt.ts';
import { ESCAPE, VIRTCTL } from '../e2e/scenarios/virtctl.ts';
import { newNamespaceName } from '../testenv/handle.ts';
import { median, percentile } from './stats.ts';
import type { BenchContext, BenchRow } from './table.ts';

const ROUNDS = 3;
const BYTES = 256 * 1024;
const KEYS = 20;
const KiB = 1024;
/** Typed by the bench: the guest prints the sum, so the echo of the command never matches it. */
const DONE = 'E42D';
const VM = 'console';

/** What one console connection said since the last reset, and when it last said anything. */
class Feed {
  private text = '';
  private bytes = 0;
  lastAt = performance.now();
  private wake: (() => void) | undefined;

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    this.text = (this.text + chunk.toString('latin1')).slice(-4096);
    this.lastAt = performance.now();
    this.wake?.();
  }

  reset(): void {
    this.text = '';
    this.bytes = 0;
  }

  /** The bytes since the reset once `test` holds for the text since then; rejects after timeoutMs. */
  async until(test: (text: string) => boolean, timeoutMs: number): Promise<number> {
    const end = performance.now() + timeoutMs;
    while (!test(this.text)) {
      const left = end - performance.now();
      if (left <= 0)
        throw new Error(`no expected console output within ${timeoutMs} ms: …${this.text.slice(-200)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.bytes;
  }

  /**
   * Waits until nothing arrived for quietMs since the call (the replayed history and the prompt are through: a
   * client that took long to connect has had no output yet), then resets.
   */
  async settle(quietMs = 500): Promise<void> {
    const from = performance.now();
    await waitFor(() => performance.now() - Math.max(this.lastAt, from) > quietMs, 'the console quiet', {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    this.reset();
  }
}

/** One console connection, either path. */
interface Line {
  readonly feed: Feed;
  send(text: string): void;
  close(): Promise<void>;
}

async function directLine(at: PodPath): Promise<Line> {
  const socket = await connectBeneath(at.root, at.rel, { clock: realClock, timeoutMs: 10_000 });
  const feed = new Feed();
  socket.on('data', (c: Buffer) => {
    feed.push(c);
  });
  return {
    feed,
    send: (t) => socket.write(t),
    close: async () => {
      socket.destroy();
      await new Promise((r) => setTimeout(r, 200));
    },
  };
}

function apiLine(admin: RestConfig, ns: string, name: string): Promise<Line> {
  const { ca, cert, key } = admin;
  const url = consoleUrl(admin, ns, name);
  const ws = new WebSocket(url, ['plain.kubevirt.io'], { ca, cert, key, perMessageDeflate: false });
  const feed = new Feed();
  ws.on('message', (c: Buffer) => {
    feed.push(c);
  });
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_req, res) => {
      reject(new Error(`console refused: HTTP ${res.statusCode}`));
    });
    ws.once('error', reject);
    ws.once('open', () => {
      resolve({
        feed,
        send: (t) => {
          ws.send(Buffer.from(t));
        },
        close: async () => {
          const closed = new Promise((r) => ws.once('close', r));
          ws.close(1000);
          await closed;
          // The handler releases the session once its side closed too.
          await new Promise((r) => setTimeout(r, 500));
        },
      });
    });
  });
}

/** `virtctl-ts console` as a person runs it (the same kube-apiserver path), fed through its stdin and stdout. */
function virtctlLine(kubeconfig: string, ns: string, name: string): Promise<Line> {
  const child = spawn(VIRTCTL, ['--kubeconfig', kubeconfig, '-n', ns, 'console', name], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const feed = new Feed();
  child.stdout.on('data', (c: Buffer) => {
    feed.push(c);
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    void exited.then((code) => {
      reject(new Error(`virtctl-ts console exited ${code}: ${stderr.slice(-300)}`));
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (!stderr.includes('Successfully connected')) return;
      resolve({
        feed,
        send: (t) => child.stdin.write(t),
        close: async () => {
          child.stdin.write(ESCAPE);
          const code = await exited;
          if (code !== 0) throw new Error(`virtctl-ts console left with ${code}: ${stderr.slice(-300)}`);
        },
      });
    });
  });
}

interface Measured {
  /** KiB/s of console output while the guest wrote BYTES. */
  readonly rate: number;
  /** ms from a key sent to its echo. */
  readonly rtts: number[];
}

async function measure(line: Line): Promise<Measured> {
  const { feed } = line;
  const send = (t: string): void => {
    line.send(t);
  };
  await feed.settle();
  const t0 = performance.now();
  send(`head -c ${BYTES} /dev/zero | tr '\\000' x; echo E$((6*7))D\n`);
  const bytes = await feed.until((t) => t.includes(DONE), 120_000);
  const rate = bytes / KiB / ((performance.now() - t0) / 1000);
  if (bytes < BYTES) throw new Error(`only ${bytes} of ${BYTES} bytes reached the client`);
  await feed.settle();
  const rtts: number[] = [];
  for (let i = 0; i < KEYS; i++) {
    feed.reset();
    const t = performance.now();
    send('a');
    await feed.until((s) => s.includes('a'), 10_000);
    rtts.push(performance.now() - t);
  }
  send('\x15'); // Ctrl+U: the typed line is dropped
  await feed.settle();
  return { rate, rtts };
}

/** The example VM Running, its guest at its shell prompt: the node path of its serial socket. */
async function startGuest(clients: VirtClients, ns: string, dir: string): Promise<PodPath> {
  await clients.kv.create(VIRTUAL_MACHINES, await exampleVm(ns, VM));
  const vmi = await waitFor(
    async () => {
      const v = await clients.kv
        .get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, VM, { namespace: ns })
        .catch(() => undefined);
      return v?.status?.phase === 'Running' && v;
    },
    'the VMI Running',
    { timeoutMs: 240_000, intervalMs: 500 },
  );
  const pods = await clients.kv.list<Pod>(PODS, {
    namespace: ns,
    labelSelector: `vm.kubevirt.io/name=${VM}`,
  });
  const podUid = pods.items[0]?.metadata.uid ?? '';
  const vmiUid = vmi.metadata.uid ?? '';
  await readSerial({ podUid, vmiUid, until: MARKER, timeoutMs: 180_000 }, dir);
  return launcherOnNode(kubeletPodsDir(dir), podUid).serialSocket(vmiUid);
}

type PathName = 'direct' | 'api' | 'virtctl';
const PATHS: readonly PathName[] = ['direct', 'api', 'virtctl'];

/** ROUNDS of each path in turn (the console admits one session at a time). */
async function rounds(
  ctx: BenchContext,
  open: Record<PathName, () => Promise<Line>>,
): Promise<Record<PathName, Measured[]>> {
  const runs: Record<PathName, Measured[]> = { direct: [], api: [], virtctl: [] };
  const said = (m: Measured | undefined): string =>
    `${m?.rate.toFixed(0) ?? '?'} KiB/s, echo ${median(m?.rtts ?? []).toFixed(1)} ms`;
  for (let r = 0; r < ROUNDS; r++) {
    for (const path of PATHS) {
      const line = await open[path]();
      try {
        runs[path].push(await measure(line));
      } finally {
        await line.close();
      }
    }
    ctx.log(
      `guest console round ${r + 1}: direct ${said(runs.direct.at(-1))}; via kube-apiserver ${said(runs.api.at(-1))}; virtctl-ts ${said(runs.virtctl.at(-1))}`,
    );
  }
  return runs;
}

function rows(runs: Record<PathName, Measured[]>): BenchRow[] {
  const rate = (k: PathName): number => median(runs[k].map((m) => m.rate));
  const rtt = (k: PathName, p: number): number =>
    percentile(
      runs[k].flatMap((m) => m.rtts),
      p,
    );
  const note = `${BYTES / KiB} KiB written by the guest, median of ${ROUNDS}`;
  const keys = `${KEYS * ROUNDS} keys`;
  return [
    { name: 'guest console → client, direct socket', value: rate('direct'), unit: 'KiB/s', note },
    {
      name: 'guest console → client, kube-apiserver + api + handler',
      value: rate('api'),
      unit: 'KiB/s',
      note,
    },
    {
      name: 'guest console, kube-apiserver path / direct throughput',
      value: rate('api') / rate('direct'),
      unit: 'ratio',
      note: 'target ≥ 0.5',
    },
    { name: 'guest console key echo, direct, p50', value: rtt('direct', 50), unit: 'ms', note: keys },
    { name: 'guest console key echo, direct, p99', value: rtt('direct', 99), unit: 'ms' },
    {
      name: 'guest console key echo, kube-apiserver path, p50',
      value: rtt('api', 50),
      unit: 'ms',
      note: keys,
    },
    { name: 'guest console key echo, kube-apiserver path, p99', value: rtt('api', 99), unit: 'ms' },
    {
      name: 'guest console → client, virtctl-ts console',
      value: rate('virtctl'),
      unit: 'KiB/s',
      note,
    },
    {
      name: 'guest console key echo, virtctl-ts console, p50',
      value: rtt('virtctl', 50),
      unit: 'ms',
      note: keys,
    },
    { name: 'guest console key echo, virtctl-ts console, p99', value: rtt('virtctl', 99), unit: 'ms' },
  ];
}

export default async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const c = await useLocalCluster({ virt: 'installed' });
  const clients = virtClients(c.kubeconfig, 'kubevirt-ts/bench-api-guest');
  const admin = loadRestConfig({
    kubeconfig: c.kubeconfig,
    inCluster: false,
    userAgent: 'kubevirt-ts/bench',
  });
  const ns = newNamespaceName('bench-console');
  try {
    await ensureNamespace(clients, ns);
    const socket = await startGuest(clients, ns, c.dir);
    return rows(
      await rounds(ctx, {
        direct: () => directLine(socket),
        api: () => apiLine(admin, ns, VM),
        virtctl: () => virtctlLine(c.kubeconfig, ns, VM),
      }),
    );
  } finally {
    await deleteNamespace(clients, ns, 180_000);
    await clients.close();
    await c.release();
  }
}
