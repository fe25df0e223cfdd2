/**
 * Certificates for the test control plane, from the test PKI (`pki.ts`): a cluster CA, the apiserver serving
 * cert, an admin client cert (system:masters), the front-proxy (request-header) CA and its client cert,
 * kube-apiserver's webhook client cert (APISERVER_WEBHOOK_CLIENT_CN, signed by the cluster CA, made on its own
 * when missing), and the service-account RSA key pair. Files live in `<dir>/pki`; an existing complete set is
 * reused so a restarted control plane keeps trusting the same kubeconfig.
 */
import { generateKeyPair } from 'node:crypto';
import { X509Certificate } from 'node:crypto';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { APISERVER_WEBHOOK_CLIENT_CN } from '../lib/kubevirt/webhooks.ts';
import { issue, type KeyPair } from './pki.ts';

export interface TestEnvCerts {
  ca: KeyPair;
  serving: KeyPair;
  admin: KeyPair;
  frontProxyCa: KeyPair;
  frontProxyClient: KeyPair;
  webhookClient: KeyPair;
  serviceAccount: { privateKey: string; publicKey: string };
}

/**
 * The SANs of the serving cert: loopback, the `kubernetes` Service's first address of the Service range and its
 * names (what a Pod's in-cluster configuration dials), and any address kube-apiserver is told to bind.
 */
function servingSans(addresses: readonly string[]): string {
  const ips = ['127.0.0.1', '::1', '10.96.0.1', ...addresses.filter((a) => a !== '127.0.0.1')];
  const names = ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'];
  return [
    ...ips.map((ip) => `IP:${ip}`),
    ...names.map((n) => `DNS:${n}`),
    'DNS:kubernetes.default.svc.cluster.local',
  ].join(',');
}

/** True when the serving certificate names every address (a set made for other addresses is not). */
async function servesAddresses(file: string, addresses: readonly string[]): Promise<boolean> {
  try {
    const cert = new X509Certificate(await readFile(file));
    return addresses.every((a) => cert.checkIP(a) !== undefined) && cert.checkIP('10.96.0.1') !== undefined;
  } catch {
    return false;
  }
}

export function certPaths(dir: string): TestEnvCerts {
  const pki = join(dir, 'pki');
  const pair = (name: string): KeyPair => ({ cert: join(pki, `${name}.crt`), key: join(pki, `${name}.key`) });
  return {
    ca: pair('ca'),
    serving: pair('apiserver'),
    admin: pair('admin'),
    frontProxyCa: pair('front-proxy-ca'),
    frontProxyClient: pair('front-proxy-client'),
    webhookClient: pair('webhook-client'),
    serviceAccount: { privateKey: join(pki, 'sa.key'), publicKey: join(pki, 'sa.pub') },
  };
}

async function allExist(pairs: readonly KeyPair[], extra: readonly string[] = []): Promise<boolean> {
  const files = [...pairs.flatMap((p) => [p.cert, p.key]), ...extra];
  try {
    await Promise.all(files.map((f) => access(f)));
    return true;
  } catch {
    return false;
  }
}

/**
 * Returns the certificate set in `<dir>/pki`, generating it when any file is missing; a serving certificate
 * that does not name every one of `addresses` (kube-apiserver's bind address) is issued again by the same CA.
 */
export async function ensureCerts(dir: string, addresses: readonly string[] = []): Promise<TestEnvCerts> {
  const c = certPaths(dir);
  const sa = c.serviceAccount;
  const base = [c.ca, c.serving, c.admin, c.frontProxyCa, c.frontProxyClient];
  if (!(await allExist(base, [sa.privateKey, sa.publicKey]))) await makeBase(dir, c, addresses);
  else if (!(await servesAddresses(c.serving.cert, addresses))) await issueServing(c, addresses);
  // On its own: a set made before this certificate existed keeps its CA (the kubeconfigs trust it).
  if (!(await allExist([c.webhookClient])))
    await issue(c.webhookClient, { cn: APISERVER_WEBHOOK_CLIENT_CN, usage: 'clientAuth' }, c.ca);
  return c;
}

function issueServing(c: TestEnvCerts, addresses: readonly string[]): Promise<void> {
  return issue(c.serving, { cn: 'kube-apiserver', usage: 'serverAuth', sans: servingSans(addresses) }, c.ca);
}

async function makeBase(dir: string, c: TestEnvCerts, addresses: readonly string[]): Promise<void> {
  await mkdir(join(dir, 'pki'), { recursive: true, mode: 0o700 });
  await Promise.all([
    issue(c.ca, { cn: 'kubevirt-ts-testenv-ca' }),
    issue(c.frontProxyCa, { cn: 'front-proxy-ca' }),
  ]);
  await Promise.all([
    issueServing(c, addresses),
    issue(c.admin, { o: 'system:masters', cn: 'admin', usage: 'clientAuth' }, c.ca),
    issue(c.frontProxyClient, { cn: 'front-proxy-client', usage: 'clientAuth' }, c.frontProxyCa),
    serviceAccountKeys(c.serviceAccount),
  ]);
}

/** The RSA key pair kube-apiserver signs and checks service-account tokens with (PKCS#8 and SPKI PEM). */
async function serviceAccountKeys(sa: TestEnvCerts['serviceAccount']): Promise<void> {
  const { privateKey, publicKey } = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  await writeFile(sa.privateKey, privateKey, { mode: 0o600 });
  await writeFile(sa.publicKey, publicKey);
}
