/**
 * The certificates of the virtualization roles `./dev run` runs on the local stack, under `<stack>/virt-pki`,
 * all signed by their own CA (Deckhouse's `virtualization-ca`; not the cluster CA, which signs every cluster
 * client): the api's serving certificate (the node address the aggregation layer dials, and loopback for the
 * rewriter's webhook proxy), the handler REST server's (CN virt-handler, which the api checks), the api's
 * client certificate for it (KubeVirt's client name, which the handler requires), the webhook proxy's serving
 * certificate and the client certificate it shows the api (CN kube-api-rewriter, the api's default webhook
 * caller). An existing complete set is reused; a leaf whose subject is no longer the one asked for is issued
 * again from the same CA (the roles read their rotated files, so running ones pick it up).
 */
import { X509Certificate } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WEBHOOK_CLIENT_CN } from '../../lib/apiserver/auth/index.ts';
import { DEFAULT_CLIENT_COMMON_NAME } from '../../lib/handler/rest/index.ts';
import { issue, subjectOf, type CertSpec, type KeyPair } from '../../testenv/pki.ts';
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

/** The CN the api expects of the handler's REST server certificate (its --handler-server-name). */
export const HANDLER_SERVER_NAME = 'virt-handler';

const LEAVES: Record<Exclude<keyof VirtCerts, 'ca'>, CertSpec> = {
  apiServing: {
    cn: 'virt-api',
    usage: 'serverAuth',
    sans: `IP:${NETWORK.nodeIp},IP:127.0.0.1,DNS:virt-api.kubevirt-ts.svc`,
  },
  handlerServing: {
    cn: HANDLER_SERVER_NAME,
    usage: 'serverAuth',
    sans: `IP:${NETWORK.nodeIp}`,
  },
  apiHandlerClient: { cn: DEFAULT_CLIENT_COMMON_NAME, usage: 'clientAuth' },
  webhookServing: { cn: 'virt-webhooks', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
  webhookClient: { cn: WEBHOOK_CLIENT_CN, usage: 'clientAuth' },
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

const names = Object.keys(LEAVES) as (keyof typeof LEAVES)[];

async function hasSubject(p: KeyPair, o: CertSpec): Promise<boolean> {
  return new X509Certificate(await readFile(p.cert)).subject === subjectOf(o);
}

/** The set, made (all of it, with a new CA) when any file is missing; a leaf with another subject made again. */
export async function ensureVirtCerts(stackDir: string): Promise<VirtCerts> {
  const c = virtCertPaths(stackDir);
  const files = Object.values(c).flatMap((p: KeyPair) => [p.cert, p.key]);
  if ((await Promise.all(files.map(exists))).every(Boolean)) {
    const stale = await Promise.all(names.map(async (k) => !(await hasSubject(c[k], LEAVES[k]))));
    await Promise.all(names.filter((_, i) => stale[i]).map((k) => issue(c[k], LEAVES[k], c.ca)));
    return c;
  }
  await mkdir(join(stackDir, 'virt-pki'), { recursive: true, mode: 0o700 });
  await issue(c.ca, { cn: 'kubevirt-ts-virtualization-ca' });
  await Promise.all(names.map((k) => issue(c[k], LEAVES[k], c.ca)));
  return c;
}
