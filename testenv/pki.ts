/**
 * The test PKI: certificates made with the openssl CLI (no shell), EC P-256 keys. A CA (and every self-signed
 * certificate) gets CA:TRUE and may sign; a leaf gets CA:FALSE and the extended key usage asked for. `issue`
 * writes one certificate's files to keep (valid ten years unless asked otherwise); `makeTestPki` makes a
 * throw-away named set and returns its PEM texts, `makeTlsFixture` one self-signed localhost certificate on
 * disk until removed (both valid two days unless asked otherwise: tests set their clocks past that).
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KvError } from '../lib/kernel/errors/errors.ts';

const run = promisify(execFile);
const KEPT_DAYS = 3650;
const THROW_AWAY_DAYS = 2;
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** The files of a certificate and its key. */
export interface KeyPair {
  readonly cert: string;
  readonly key: string;
}

/** The PEM texts of a certificate and its key. */
export interface TestPem {
  readonly cert: string;
  readonly key: string;
}

export interface CertSpec {
  readonly cn: string;
  /** The organization (Kubernetes reads it as the group). */
  readonly o?: string;
  /** true for a CA; a self-signed certificate is always one. */
  readonly ca?: boolean;
  /** Extended key usage of a leaf; absent leaves the extension out. */
  readonly usage?: 'serverAuth' | 'clientAuth';
  /** subjectAltName value, e.g. 'IP:127.0.0.1,DNS:localhost'. */
  readonly sans?: string;
  /** Days of validity from now. */
  readonly days?: number;
}

/** The subject as X509Certificate.subject writes it ('O=…\nCN=…'). */
function subjectOf(spec: CertSpec): string {
  return [...(spec.o === undefined ? [] : [`O=${spec.o}`]), `CN=${spec.cn}`].join('\n');
}

function extensions(spec: CertSpec, selfSigned: boolean): string[] {
  const ext =
    spec.ca === true || selfSigned
      ? ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign,digitalSignature']
      : ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature,keyEncipherment'];
  if (spec.usage !== undefined) ext.push(`extendedKeyUsage=${spec.usage}`);
  if (spec.sans !== undefined) ext.push(`subjectAltName=${spec.sans}`);
  return ext.flatMap((e) => ['-addext', e]);
}

/** Writes the certificate and key of `spec` to `at`, signed by `issuer` (a CA's files), or self-signed. */
export async function issue(at: KeyPair, spec: CertSpec, issuer?: KeyPair): Promise<void> {
  const subject = `/${subjectOf(spec).split('\n').join('/')}`;
  const signer = issuer === undefined ? [] : ['-CA', issuer.cert, '-CAkey', issuer.key];
  const out = ['-keyout', at.key, '-out', at.cert];
  const args = ['req', '-x509', ...EC_KEY, ...out, '-days', String(spec.days ?? KEPT_DAYS), '-subj', subject];
  try {
    await run('openssl', [...args, ...signer, ...extensions(spec, issuer === undefined)]);
  } catch (err) {
    const stderr = (err as { stderr?: unknown }).stderr;
    const detail = typeof stderr === 'string' ? stderr.trim() : String(err);
    throw new KvError('KV_ERR_CONFIG', `openssl req for ${subject} failed: ${detail}`, { cause: err });
  }
}

async function readPem(files: KeyPair): Promise<TestPem> {
  return { cert: await readFile(files.cert, 'utf8'), key: await readFile(files.key, 'utf8') };
}

interface NamedCertSpec extends CertSpec {
  /** Key of this entry in the result. */
  readonly name: string;
  /** Name of an earlier entry that signs this one; absent for a self-signed root. */
  readonly issuer?: string;
}

/** Makes the set in a temp dir, each certificate once its issuer is made, and returns the PEM texts. */
export async function makeTestPki(specs: readonly NamedCertSpec[]): Promise<Record<string, TestPem>> {
  specs.forEach((s, i) => {
    if (s.issuer !== undefined && !specs.slice(0, i).some((e) => e.name === s.issuer))
      throw new Error(`test PKI: the issuer ${s.issuer} of ${s.name} is not an earlier entry`);
  });
  const dir = await mkdtemp(join(tmpdir(), 'kv-test-pki-'));
  const files = (n: string): KeyPair => ({ cert: join(dir, `${n}.crt`), key: join(dir, `${n}.key`) });
  const made = new Map<string, Promise<TestPem>>();
  const make = async (s: NamedCertSpec): Promise<TestPem> => {
    if (s.issuer !== undefined) await made.get(s.issuer);
    const signer = s.issuer === undefined ? undefined : files(s.issuer);
    await issue(files(s.name), { days: THROW_AWAY_DAYS, ...s }, signer);
    return readPem(files(s.name));
  };
  try {
    for (const s of specs) made.set(s.name, make(s));
    return Object.fromEntries(
      await Promise.all([...made].map(async ([name, p]) => [name, await p] as const)),
    );
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

/** A self-signed certificate for 127.0.0.1 and localhost: server and client certificate and CA at once. */
export interface TlsFixture extends TestPem {
  readonly certFile: string;
  readonly keyFile: string;
  remove(): void;
}

/** Makes the fixture in a temp dir, kept until `remove`. */
export async function makeTlsFixture(): Promise<TlsFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'kv-tls-'));
  const files = { cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key') };
  await issue(files, { cn: 'localhost', sans: 'IP:127.0.0.1,DNS:localhost', days: THROW_AWAY_DAYS });
  return {
    ...(await readPem(files)),
    certFile: files.cert,
    keyFile: files.key,
    remove: (): void => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
