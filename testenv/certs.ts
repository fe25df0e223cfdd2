/**
 * Certificates for the test control plane, made with the `openssl` CLI (no shell): a cluster CA, the
 * apiserver serving cert, an admin client cert (system:masters), the front-proxy (request-header) CA and
 * its client cert, kube-apiserver's webhook client cert (APISERVER_WEBHOOK_CLIENT_CN, signed by the cluster CA,
 * made on its own when missing), and the service-account RSA key pair. Files live in `<dir>/pki`; an existing complete
 * set is reused so a restarted control plane keeps trusting the same kubeconfig.
 */
import { execFile } from 'node:child_process';
import { access, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KvError } from '../lib/kernel/errors/errors.ts';

const run = promisify(execFile);

export interface KeyPair {
  cert: string;
  key: string;
}

export interface TestEnvCerts {
  ca: KeyPair;
  serving: KeyPair;
  admin: KeyPair;
  frontProxyCa: KeyPair;
  frontProxyClient: KeyPair;
  webhookClient: KeyPair;
  serviceAccount: { privateKey: string; publicKey: string };
}

/** The common name of the certificate kube-apiserver shows the admission webhooks it calls. */
export const APISERVER_WEBHOOK_CLIENT_CN = 'kube-apiserver-webhook-client';

/** The SANs of the serving cert: loopback only, plus the in-cluster name. */
const SERVING_SANS = 'IP:127.0.0.1,IP:::1,DNS:localhost,DNS:kubernetes.default.svc';

const DAYS = '3650';
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

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

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args);
  } catch (err) {
    const stderr = (err as { stderr?: unknown }).stderr;
    const detail = typeof stderr === 'string' ? stderr.trim() : String(err);
    throw new KvError('KV_ERR_CONFIG', `openssl ${args[0] ?? ''} failed: ${detail}`, { cause: err });
  }
}

export async function selfSignedCa(p: KeyPair, cn: string): Promise<void> {
  await openssl([
    'req',
    '-x509',
    ...EC_KEY,
    '-keyout',
    p.key,
    '-out',
    p.cert,
    '-days',
    DAYS,
    '-subj',
    `/CN=${cn}`,
  ]);
}

export interface LeafOptions {
  subject: string;
  usage: 'serverAuth' | 'clientAuth';
  sans?: string;
}

export async function leaf(p: KeyPair, ca: KeyPair, o: LeafOptions): Promise<void> {
  const ext = [
    '-addext',
    'basicConstraints=critical,CA:FALSE',
    '-addext',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    '-addext',
    `extendedKeyUsage=${o.usage}`,
  ];
  if (o.sans !== undefined) ext.push('-addext', `subjectAltName=${o.sans}`);
  const signer = ['-CA', ca.cert, '-CAkey', ca.key];
  await openssl(
    ['req', '-x509', ...EC_KEY, '-keyout', p.key, '-out', p.cert, '-days', DAYS, '-subj', o.subject].concat(
      signer,
      ext,
    ),
  );
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

/** Returns the certificate set in `<dir>/pki`, generating it when any file is missing. */
export async function ensureCerts(dir: string): Promise<TestEnvCerts> {
  const c = certPaths(dir);
  const sa = c.serviceAccount;
  const base = [c.ca, c.serving, c.admin, c.frontProxyCa, c.frontProxyClient];
  if (!(await allExist(base, [sa.privateKey, sa.publicKey]))) await makeBase(dir, c);
  // On its own: a set made before this certificate existed keeps its CA (the kubeconfigs trust it).
  if (!(await allExist([c.webhookClient])))
    await leaf(c.webhookClient, c.ca, { subject: `/CN=${APISERVER_WEBHOOK_CLIENT_CN}`, usage: 'clientAuth' });
  return c;
}

async function makeBase(dir: string, c: TestEnvCerts): Promise<void> {
  await mkdir(join(dir, 'pki'), { recursive: true, mode: 0o700 });
  await Promise.all([
    selfSignedCa(c.ca, 'kubevirt-ts-testenv-ca'),
    selfSignedCa(c.frontProxyCa, 'front-proxy-ca'),
  ]);
  const sa = c.serviceAccount;
  await Promise.all([
    leaf(c.serving, c.ca, { subject: '/CN=kube-apiserver', usage: 'serverAuth', sans: SERVING_SANS }),
    leaf(c.admin, c.ca, { subject: '/O=system:masters/CN=admin', usage: 'clientAuth' }),
    leaf(c.frontProxyClient, c.frontProxyCa, { subject: '/CN=front-proxy-client', usage: 'clientAuth' }),
    openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', sa.privateKey]),
  ]);
  await openssl(['pkey', '-in', sa.privateKey, '-pubout', '-out', sa.publicKey]);
}
