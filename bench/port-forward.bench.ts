/**
 * `npm run bench -- port-forward`, on the local cluster with the operator's install: a TCP echo in a real guest
 * (the masquerade test VM under TCG, port 1500) reached four ways, in one run, rounds taking turns:
 * - `api`: our path as a user takes it — a websocket to kube-apiserver's portforward subresource, the aggregation
 *   layer to the api Pod, mutual TLS to the handler, the launcher's port-forward socket, the Pod's loopback NAT;
 * - `launcher`: the launcher's port-forward socket opened on the node, as the handler opens it: the hop into the
 *   launcher Pod's namespace alone;
 * - `wss-launcher`: a websocket server of this process (TLS, the relay our servers use) that opens the launcher's
 *   socket: our last two hops without kube-apiserver and the api;
 * - `wss-pod-ip`: the same server dialling the Pod IP instead, which is what KubeVirt's api does after its
 *   checks (pkg/virt-api/rest/dialers.go netDial): KubeVirt's path without kube-apiserver, measured the same way.
 * Throughput: BYTES sent and echoed back; round trip: ECHOES small messages one after another. Medians of ROUNDS.
 */
import { createServer as createHttps } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import {
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  type VirtualMachineInstance,
} from '../lib/kubevirt/index.ts';
import type { Pod } from '../lib/kubevirt/core/pod.ts';
import { realClock } from '../lib/kernel/clock.ts';
import { loadRestConfig, PODS, type RestConfig } from '../lib/kernel/kube/index.ts';
import { connectBeneath } from '../lib/kernel/safepath/index.ts';
import { waitFor } from '../lib/kernel/testing/wait.ts';
import { relayWebSocket } from '../lib/kernel/ws/relay.ts';
import { makeRestPki } from '../lib/handler/rest/testing/pki.ts';
import { launcherOnNode, type PodPath } from '../lib/rpc/index.ts';
import { parseAnswerLine, readLine, requestLine } from '../lib/rpc/port-forward.ts';
import { GUEST_PORTS, NET_MARKER } from '../testenv/guests/guests.ts';
import { useLocalCluster } from '../e2e/local/testing/cluster.ts';
import { ensureNamespace } from '../e2e/local/virt-install.ts';
import { deleteNamespace, kubeletPodsDir, masqueradeVm, readSerial, virtClients } from '../e2e/local/virt.ts';
import { newNamespaceName } from '../testenv/handle.ts';
import { median, percentile } from './stats.ts';
import type { BenchContext, BenchRow } from './table.ts';

const ROUNDS = 3;
const BYTES = 4 * 1024 * 1024;
const CHUNK = 16 * 1024;
const ECHOES = 50;
const MiB = 1024 * 1024;
const VM = 'forward';
const PORT = GUEST_PORTS.tcpEcho;

/** A byte pipe to the guest's echo. */
interface Pipe {
  send(data: Buffer): void;
  onData(cb: (data: Buffer) => void): void;
  close(): void;
}

function socketPipe(s: Socket): Pipe {
  return {
    send: (d) => {
      s.write(d);
    },
    onData: (cb) => {
      s.on('data', cb);
    },
    close: () => {
      s.destroy();
    },
  };
}

function wsPipe(ws: WebSocket): Pipe {
  return {
    send: (d) => {
      ws.send(d, { binary: true });
    },
    onData: (cb) =>
      ws.on('message', (d: Buffer) => {
        cb(d);
      }),
    close: () => {
      ws.terminate();
    },
  };
}

/** The launcher's port-forward socket, connected to the guest's port (what the handler does). */
async function launcherConn(at: PodPath): Promise<Socket> {
  const s = await connectBeneath(at.root, at.rel, { clock: realClock, timeoutMs: 5000 });
  s.write(requestLine({ protocol: 'tcp', port: PORT }));
  const answer = parseAnswerLine(await readLine(s, 10_000));
  if (!answer.ok) throw new Error(answer.error);
  s.resume();
  return s;
}

function openWs(url: string, o: ConstructorParameters<typeof WebSocket>[2]): Promise<Pipe> {
  const ws = new WebSocket(url, ['plain.kubevirt.io'], { ...o, perMessageDeflate: false });
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      resolve(wsPipe(ws));
    });
    ws.once('unexpected-response', (_q, res) => {
      reject(new Error(`HTTP ${res.statusCode ?? 0}`));
    });
    ws.once('error', reject);
  });
}

/** A TLS websocket server relaying each session to what `dial` opens (ours: the launcher socket; KubeVirt's: the Pod IP). */
async function relayServer(
  dial: () => Promise<Socket>,
): Promise<{ url: string; ca: string | Buffer; close(): void }> {
  const pki = await makeRestPki();
  const https = createHttps({ cert: pki.server.cert, key: pki.server.key });
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: () => 'plain.kubevirt.io',
  });
  https.on('upgrade', (req, socket, head) => {
    void dial().then((peer) => {
      wss.handleUpgrade(req, socket, head, (ws) => {
        relayWebSocket(ws, peer, {
          pingIntervalMs: 30_000,
          clock: realClock,
          peerClosed: 'peer-closed',
          frameBytes: 10240,
        });
        peer.resume();
      });
    });
  });
  await new Promise<void>((r) => https.listen(0, '127.0.0.1', r));
  const { port } = https.address() as AddressInfo;
  return { url: `wss://127.0.0.1:${port}/`, ca: pki.ca.cert, close: () => https.close() };
}

interface Measured {
  readonly mibPerS: number;
  readonly rtts: number[];
}

/** BYTES through the echo and back, then ECHOES round trips of 32 bytes. */
async function measure(pipe: Pipe): Promise<Measured> {
  let got = 0;
  let wake: (() => void) | undefined;
  pipe.onData((d) => {
    got += d.length;
    wake?.();
  });
  const until = (n: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`${got} of ${n} bytes back after 120 s`));
      }, 120_000);
      wake = (): void => {
        if (got < n) return;
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
      wake();
    });
  const t0 = performance.now();
  const chunk = Buffer.alloc(CHUNK, 0x61);
  for (let sent = 0; sent < BYTES; sent += CHUNK) pipe.send(chunk);
  await until(BYTES);
  const mibPerS = BYTES / MiB / ((performance.now() - t0) / 1000);
  const rtts: number[] = [];
  for (let i = 0; i < ECHOES; i++) {
    const t = performance.now();
    const want = got + 32;
    pipe.send(Buffer.alloc(32, 0x62));
    await until(want);
    rtts.push(performance.now() - t);
  }
  pipe.close();
  return { mibPerS, rtts };
}

type PathName = 'api' | 'launcher' | 'wss-launcher' | 'wss-pod-ip';
const PATHS: readonly PathName[] = ['api', 'launcher', 'wss-launcher', 'wss-pod-ip'];

async function startGuest(
  ns: string,
  c: { kubeconfig: string; dir: string },
): Promise<{ podIp: string; socket: PodPath }> {
  const clients = virtClients(c.kubeconfig, 'kubevirt-ts/bench-port-forward');
  try {
    await ensureNamespace(clients, ns);
    await clients.kv.create(VIRTUAL_MACHINES, await masqueradeVm(ns, VM));
    const vmi = await waitFor(
      async () => {
        const v = await clients.kv
          .get<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, VM, { namespace: ns })
          .catch(() => undefined);
        return v?.status?.phase === 'Running' && (v.status.interfaces?.[0]?.ipAddress ?? '') !== '' && v;
      },
      'the VMI Running with an address',
      { timeoutMs: 240_000, intervalMs: 500 },
    );
    const active = Object.keys(vmi.status?.activePods ?? {});
    const pod = (await clients.direct.list<Pod>(PODS, { namespace: ns })).items.find((p) =>
      active.includes(p.metadata.uid ?? ''),
    );
    const podUid = pod?.metadata.uid ?? '';
    await readSerial(
      { podUid, vmiUid: vmi.metadata.uid ?? '', until: NET_MARKER, timeoutMs: 180_000 },
      c.dir,
    );
    return {
      podIp: pod?.status?.podIP ?? '',
      socket: launcherOnNode(kubeletPodsDir(c.dir), podUid).portForwardSocket,
    };
  } finally {
    await clients.close();
  }
}

function apiUrl(admin: RestConfig, ns: string): string {
  const path = `/apis/subresources.kubevirt.io/v1/namespaces/${ns}/virtualmachineinstances/${VM}/portforward/${PORT}`;
  const url = new URL(path, admin.server);
  url.protocol = 'wss:';
  return url.toString();
}

function rows(runs: Record<PathName, Measured[]>): BenchRow[] {
  const rate = (k: PathName): number => median(runs[k].map((m) => m.mibPerS));
  const rtt = (k: PathName): number =>
    percentile(
      runs[k].flatMap((m) => m.rtts),
      50,
    );
  const note = `${BYTES / MiB} MiB echoed by the guest under TCG, median of ${ROUNDS}`;
  const out: BenchRow[] = [];
  for (const k of PATHS) {
    out.push({ name: `port-forward ${k}: throughput`, value: rate(k), unit: 'MiB/s', note });
    out.push({
      name: `port-forward ${k}: round trip p50`,
      value: rtt(k),
      unit: 'ms',
      note: `${ECHOES * ROUNDS} echoes`,
    });
  }
  out.push(
    { name: 'port-forward api / launcher throughput', value: rate('api') / rate('launcher'), unit: 'ratio' },
    { name: 'port-forward api / launcher round trip', value: rtt('api') / rtt('launcher'), unit: 'ratio' },
    {
      name: 'port-forward wss-launcher / wss-pod-ip (ours / KubeVirt) throughput',
      value: rate('wss-launcher') / rate('wss-pod-ip'),
      unit: 'ratio',
    },
    {
      name: 'port-forward wss-launcher / wss-pod-ip (ours / KubeVirt) round trip',
      value: rtt('wss-launcher') / rtt('wss-pod-ip'),
      unit: 'ratio',
    },
  );
  return out;
}

export default async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const c = await useLocalCluster({ virt: 'installed' });
  const admin = loadRestConfig({
    kubeconfig: c.kubeconfig,
    inCluster: false,
    userAgent: 'kubevirt-ts/bench',
  });
  const ns = newNamespaceName('bench-forward');
  const servers: { close(): void }[] = [];
  try {
    const guest = await startGuest(ns, c);
    const viaLauncher = await relayServer(() => launcherConn(guest.socket));
    const viaPodIp = await relayServer(
      () =>
        new Promise<Socket>((resolve, reject) => {
          const s = connect(PORT, guest.podIp, () => {
            resolve(s);
          });
          s.once('error', reject);
        }),
    );
    servers.push(viaLauncher, viaPodIp);
    const open: Record<PathName, () => Promise<Pipe>> = {
      api: () => openWs(apiUrl(admin, ns), { ca: admin.ca, cert: admin.cert, key: admin.key }),
      launcher: async () => socketPipe(await launcherConn(guest.socket)),
      'wss-launcher': () => openWs(viaLauncher.url, { ca: viaLauncher.ca }),
      'wss-pod-ip': () => openWs(viaPodIp.url, { ca: viaPodIp.ca }),
    };
    const runs: Record<PathName, Measured[]> = {
      api: [],
      launcher: [],
      'wss-launcher': [],
      'wss-pod-ip': [],
    };
    for (let r = 0; r < ROUNDS; r++) {
      for (const k of PATHS) runs[k].push(await measure(await open[k]()));
      ctx.log(
        `port-forward round ${r + 1}: ${PATHS.map((k) => `${k} ${runs[k].at(-1)?.mibPerS.toFixed(2) ?? '?'} MiB/s`).join(', ')}`,
      );
    }
    return rows(runs);
  } finally {
    for (const s of servers) s.close();
    const clients = virtClients(c.kubeconfig, 'kubevirt-ts/bench-port-forward');
    await deleteNamespace(clients, ns, 180_000);
    await clients.close();
    await c.release();
  }
}
