/**
 * A VMI's serial console read the way a user reads it: a websocket to kube-apiserver's
 * subresources.kubevirt.io path (subprotocol plain.kubevirt.io), through the aggregation layer to the api and on
 * to the handler. Reads until the line holding `until` is complete (the launcher replays recent output to each new session), trying
 * again while the path is not ready yet (a refusal, or a session that ends without it), up to timeoutMs.
 */
import { WebSocket } from 'ws';
import type { RestConfig } from '../../lib/kernel/kube/index.ts';
import { waitFor } from '../../lib/kernel/testing/wait.ts';

export interface ConsoleRead {
  readonly namespace: string;
  readonly name: string;
  readonly until: string;
  readonly timeoutMs: number;
}

export function consoleUrl(admin: RestConfig, namespace: string, name: string): URL {
  const path = `/apis/subresources.kubevirt.io/v1/namespaces/${namespace}/virtualmachineinstances/${name}/console`;
  const url = new URL(path, admin.server);
  url.protocol = 'wss:';
  return url;
}

/** One session: what it said up to `until`, or undefined when it was refused or ended first (after 20 s at most). */
function oneSession(
  admin: RestConfig,
  r: ConsoleRead,
  failed: (why: string) => void,
): Promise<string | undefined> {
  const { ca, cert, key } = admin;
  const ws = new WebSocket(consoleUrl(admin, r.namespace, r.name), ['plain.kubevirt.io'], { ca, cert, key });
  return new Promise((resolve) => {
    let seen = '';
    const end = (text: string | undefined, why?: string): void => {
      clearTimeout(timer);
      if (why !== undefined) failed(why);
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
      resolve(text);
    };
    const timer = setTimeout(() => {
      end(undefined, `no ${r.until} within 20 s`);
    }, 20_000);
    ws.on('message', (d: Buffer) => {
      seen += d.toString('utf8');
      const at = seen.indexOf(r.until);
      if (at >= 0 && seen.includes('\n', at)) end(seen);
    });
    ws.on('unexpected-response', (_req, res) => {
      end(undefined, `HTTP ${res.statusCode ?? 0}`);
    });
    ws.on('error', (err) => {
      end(undefined, err.message);
    });
    ws.on('close', (code) => {
      end(undefined, `closed with ${code}`);
    });
  });
}

export async function readConsoleThroughApi(admin: RestConfig, r: ConsoleRead): Promise<string> {
  let last = '';
  return waitFor(
    () =>
      oneSession(admin, r, (why) => {
        last = why;
      }),
    () => `${r.until} on the console of ${r.namespace}/${r.name} through kube-apiserver (last: ${last})`,
    { timeoutMs: r.timeoutMs, intervalMs: 1000 },
  );
}
