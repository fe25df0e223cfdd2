/**
 * Readiness probes of the node's components: plain HTTP healthz on loopback (kubelet, kube-proxy), HTTPS
 * healthz with a self-signed serving cert (kcm, scheduler: /healthz is open to anonymous requests), and
 * containerd's socket answering `ctr version`.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { attempt } from './exec.ts';

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

export async function containerdUp(ctr: string, socket: string): Promise<boolean> {
  return (await attempt(ctr, ['--address', socket, 'version'])).code === 0;
}
