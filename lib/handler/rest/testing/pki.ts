/**
 * Certificates for REST server tests, made with the openssl CLI (no shell) in a temp dir: the client CA with
 * a server certificate for 127.0.0.1 and a client certificate (CN kubevirt.io:system:client:virt-handler, as
 * KubeVirt names it), and a second CA with a client certificate of its own (one the server must refuse).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'];

export const CLIENT_CN = 'kubevirt.io:system:client:virt-handler';

export interface Pem {
  readonly cert: Buffer;
  readonly key: Buffer;
}

export interface RestPki {
  readonly ca: Pem;
  readonly server: Pem;
  readonly client: Pem;
  /** A client certificate from another CA. */
  readonly stranger: Pem;
  /** A client certificate from the right CA with another CN. */
  readonly otherName: Pem;
}

async function make(dir: string, name: string, args: string[]): Promise<Pem> {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  await run('openssl', ['req', '-x509', ...EC_KEY, '-keyout', key, '-out', cert, ...args]);
  return { cert: await readFile(cert), key: await readFile(key) };
}

interface Leaf {
  readonly ca: string;
  readonly cn: string;
  readonly usage: 'serverAuth' | 'clientAuth';
  readonly sans?: string;
}

function leaf(dir: string, { ca, cn, usage, sans }: Leaf): string[] {
  const ext = ['-addext', 'basicConstraints=critical,CA:FALSE', '-addext', `extendedKeyUsage=${usage}`];
  if (sans !== undefined) ext.push('-addext', `subjectAltName=${sans}`);
  return ['-subj', `/CN=${cn}`, '-CA', join(dir, `${ca}.crt`), '-CAkey', join(dir, `${ca}.key`), ...ext];
}

export async function makeRestPki(): Promise<RestPki> {
  const dir = await mkdtemp(join(tmpdir(), 'kv-console-pki-'));
  try {
    const ca = await make(dir, 'ca', ['-subj', '/CN=kubevirt-ts-console-test-ca']);
    await make(dir, 'other-ca', ['-subj', '/CN=some-other-ca']);
    const [server, client, stranger, otherName] = await Promise.all([
      make(
        dir,
        'server',
        leaf(dir, { ca: 'ca', cn: 'virt-handler', usage: 'serverAuth', sans: 'IP:127.0.0.1,DNS:localhost' }),
      ),
      make(dir, 'client', leaf(dir, { ca: 'ca', cn: CLIENT_CN, usage: 'clientAuth' })),
      make(dir, 'stranger', leaf(dir, { ca: 'other-ca', cn: CLIENT_CN, usage: 'clientAuth' })),
      make(dir, 'other-name', leaf(dir, { ca: 'ca', cn: 'someone-else', usage: 'clientAuth' })),
    ]);
    return { ca, server, client, stranger, otherName };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
