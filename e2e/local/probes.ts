/**
 * Readiness probes of the node's components: plain HTTP healthz on loopback (kubelet, kube-proxy), HTTPS
 * healthz with a self-signed serving cert (kcm, scheduler: /healthz is open to anonymous requests), and
 * containerd answering the CRI Version call the kubelet makes first. `ctr version` answers sooner, before the CRI
 * plugin has initialized; a kubelet started then gets Unavailable "server is not initialized yet" and exits.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import { unixTarget } from '../../lib/rpc/listen.ts';

function status(url: string): Promise<number> {
  const req = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const r = req(url, { timeout: 2_000, rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    r.on('timeout', () => r.destroy());
    r.on('error', () => {
      resolve(0);
    });
    r.end();
  });
}

export async function healthz(url: string): Promise<boolean> {
  return (await status(url)) === 200;
}

/** runtime.v1.RuntimeService/Version with an empty VersionRequest; true when it answers OK within 2 s. */
export function containerdUp(socket: string): Promise<boolean> {
  const client = new Client(unixTarget(socket), credentials.createInsecure());
  return new Promise<boolean>((resolve) => {
    client.makeUnaryRequest(
      '/runtime.v1.RuntimeService/Version',
      () => Buffer.alloc(0),
      (b: Buffer) => b,
      {},
      new Metadata(),
      { deadline: Date.now() + 2_000 },
      (err) => {
        resolve(err === null);
      },
    );
  }).finally(() => {
    client.close();
  });
}
