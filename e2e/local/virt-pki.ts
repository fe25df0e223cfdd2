/**
 * The certificates of the virtualization roles `./dev run` runs on the local stack, under `<stack>/virt-pki`,
 * all signed by their own CA (Deckhouse's `virtualization-ca`; not the cluster CA, which signs every cluster
 * client): the api's serving certificate (the node address the aggregation layer dials, and loopback for the
 * rewriter's webhook proxy), the handler console server's (CN virt-handler, which the api checks), the api's
 * client certificate for it, the webhook proxy's serving certificate and the client certificate it shows the api
 * (CN kube-api-rewriter, the api's default webhook caller). An existing complete set is reused.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { WEBHOOK_CLIENT_CN } from '../../lib/apiserver/auth/index.ts';
import { leaf, selfSignedCa, type KeyPair, type LeafOptions } from '../testenv/certs.ts';
import { NETWORK } from './layout.ts';
import { exists } from './pki.ts';

export interface VirtCerts {
  readonly ca: KeyPair;
  readonly apiServing: KeyPair;
  readonly handlerServing: KeyPair;
  readonly apiHandlerClient: KeyPair;
  readonly webhookServing: KeyPair;
  readonly webhookClient: KeyPair;
}

/** The CN the api expects of the handler's console server certificate (its --handler-server-name). */
export const HANDLER_SERVER_NAME = 'virt-handler';

const LEAVES: Record<Exclude<keyof VirtCerts, 'ca'>, LeafOptions> = {
  apiServing: {
    subject: '/CN=virt-api',
    usage: 'serverAuth',
    sans: `IP:${NETWORK.nodeIp},IP:127.0.0.1,DNS:virt-api.kubevirt-ts.svc`,
  },
  handlerServing: {
    subject: `/CN=${HANDLER_SERVER_NAME}`,
    usage: 'serverAuth',
    sans: `IP:${NETWORK.nodeIp}`,
  },
  apiHandlerClient: { subject: '/CN=virt-api', usage: 'clientAuth' },
  webhookServing: { subject: '/CN=virt-webhooks', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
  webhookClient: { subject: `/CN=${WEBHOOK_CLIENT_CN}`, usage: 'clientAuth' },
};

export function virtCertPaths(stackDir: string): VirtCerts {
  const dir = join(stackDir, 'virt-pki');
  const pair = (name: string): KeyPair => ({ cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) });
  return {
    ca: pair('ca'),
    apiServing: pair('api-serving'),
    handlerServing: pair('handler-serving'),
    apiHandlerClient: pair('api-handler-client'),
    webhookServing: pair('webhook-serving'),
    webhookClient: pair('webhook-client'),
  };
}

/** The set, made (all of it, with a new CA) when any file is missing. */
export async function ensureVirtCerts(stackDir: string): Promise<VirtCerts> {
  const c = virtCertPaths(stackDir);
  const files = Object.values(c).flatMap((p: KeyPair) => [p.cert, p.key]);
  if ((await Promise.all(files.map(exists))).every(Boolean)) return c;
  await mkdir(join(stackDir, 'virt-pki'), { recursive: true, mode: 0o700 });
  await selfSignedCa(c.ca, 'kubevirt-ts-virtualization-ca');
  const names = Object.keys(LEAVES) as (keyof typeof LEAVES)[];
  await Promise.all(names.map((k) => leaf(c[k], c.ca, LEAVES[k])));
  return c;
}
