/**
 * etcd for the test control plane: a single member on loopback (client and peer), plain HTTP, and the
 * v3 HTTP/JSON gateway (on by default) for health and compaction, so no etcdctl is needed.
 */
import { KvError } from '../lib/kernel/errors/errors.ts';

export interface EtcdArgsOptions {
  dataDir: string;
  clientPort: number;
  peerPort: number;
}

export function etcdArgs(o: EtcdArgsOptions): string[] {
  const client = `http://127.0.0.1:${o.clientPort}`;
  const peer = `http://127.0.0.1:${o.peerPort}`;
  return [
    '--name=testenv',
    `--data-dir=${o.dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=testenv=${peer}`,
    '--initial-cluster-state=new',
    // Test data only: skipping fsync keeps the shared 2-core machine responsive; etcd is always stopped
    // gracefully (only the API server gets SIGKILL in tests).
    '--unsafe-no-fsync=true',
    '--log-level=warn',
  ];
}

interface GatewayReply {
  message?: unknown;
  header?: { revision?: unknown };
}

async function post(endpoint: string, path: string, body: unknown): Promise<GatewayReply> {
  let res: globalThis.Response;
  try {
    res = await fetch(`${endpoint}${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    throw new KvError('KV_ERR_TRANSPORT', `etcd ${path} at ${endpoint} failed`, { cause: err });
  }
  const json = (await res.json()) as GatewayReply;
  if (!res.ok) {
    const msg = typeof json.message === 'string' ? json.message : JSON.stringify(json);
    throw new KvError('KV_ERR_TRANSPORT', `etcd ${path}: HTTP ${res.status}: ${msg}`);
  }
  return json;
}

/** The store's current revision (from the response header of a one-key range). */
async function etcdRevision(endpoint: string): Promise<string> {
  const res = await post(endpoint, '/v3/kv/range', { key: Buffer.from('/').toString('base64'), limit: 1 });
  const rev = res.header?.revision;
  if (typeof rev !== 'string') throw new KvError('KV_ERR_DECODE', 'etcd range: no header.revision');
  return rev;
}

/** Compacts etcd to its current revision (physically, so it is done on return); returns that revision. */
export async function compactEtcd(endpoint: string): Promise<string> {
  const revision = await etcdRevision(endpoint);
  try {
    await post(endpoint, '/v3/kv/compaction', { revision, physical: true });
  } catch (err) {
    // Nothing was written since the last compaction: the store is already compacted to this revision.
    if (!(err instanceof KvError && err.message.includes('required revision has been compacted'))) throw err;
  }
  return revision;
}

/** True when etcd answers /health with health "true". */
export async function etcdHealthy(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(2_000) });
    const json = (await res.json()) as { health?: unknown };
    return res.ok && json.health === 'true';
  } catch {
    return false;
  }
}
