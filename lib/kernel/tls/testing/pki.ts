/**
 * Test support: a small certificate tree made with the openssl CLI (no shell) in a temp dir that is removed
 * afterwards. Each entry names its issuer (an earlier entry) or none for a self-signed root; CAs get
 * `CA:TRUE`, leaves `CA:FALSE` and the extended key usage asked for. EC P-256 keys keep it fast.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export interface TestPem {
  readonly cert: string;
  readonly key: string;
}

export interface CertSpec {
  /** Key of this entry in the result; also the file name in the temp dir. */
  readonly name: string;
  readonly cn: string;
  /** Name of an earlier entry that signs this one; absent for a self-signed root. */
  readonly issuer?: string;
  /** true for a CA (roots are always CAs). */
  readonly ca?: boolean;
  /** Extended key usage of a leaf; absent leaves the extension out. */
  readonly usage?: 'serverAuth' | 'clientAuth';
  /** subjectAltName value, e.g. 'IP:127.0.0.1,DNS:localhost'. */
  readonly sans?: string;
  readonly days?: number;
}

function extensions(spec: CertSpec): string[] {
  const isCa = spec.ca === true || spec.issuer === undefined;
  const ext = ['-addext', `basicConstraints=critical,CA:${isCa ? 'TRUE' : 'FALSE'}`];
  if (isCa) ext.push('-addext', 'keyUsage=critical,keyCertSign,cRLSign,digitalSignature');
  if (spec.usage !== undefined) ext.push('-addext', `extendedKeyUsage=${spec.usage}`);
  if (spec.sans !== undefined) ext.push('-addext', `subjectAltName=${spec.sans}`);
  return ext;
}

/** Makes the certificates in order; an issuer must come before what it signs. */
export async function makeTestPki(specs: readonly CertSpec[]): Promise<Record<string, TestPem>> {
  const dir = await mkdtemp(join(tmpdir(), 'kv-test-pki-'));
  const out: Record<string, TestPem> = {};
  try {
    for (const spec of specs) {
      const cert = join(dir, `${spec.name}.crt`);
      const key = join(dir, `${spec.name}.key`);
      const signer =
        spec.issuer === undefined
          ? []
          : ['-CA', join(dir, `${spec.issuer}.crt`), '-CAkey', join(dir, `${spec.issuer}.key`)];
      await run('openssl', [
        'req',
        '-x509',
        ...EC_KEY,
        '-days',
        String(spec.days ?? 2),
        '-subj',
        `/CN=${spec.cn}`,
        '-keyout',
        key,
        '-out',
        cert,
        ...signer,
        ...extensions(spec),
      ]);
      out[spec.name] = { cert: await readFile(cert, 'utf8'), key: await readFile(key, 'utf8') };
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The entry of that name, or a thrown error naming it (keeps tests free of non-null assertions). */
export function pemOf(pki: Record<string, TestPem>, name: string): TestPem {
  const pem = pki[name];
  if (pem === undefined) throw new Error(`test PKI has no entry ${name}`);
  return pem;
}
