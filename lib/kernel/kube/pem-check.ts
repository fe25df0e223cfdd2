/**
 * The TLS material of a RestConfig checked when it is loaded, so a broken certificate or key fails at start-up
 * with the field that holds it, not at the first request with an OpenSSL message. Only OpenSSL's error code
 * is kept (`ERR_OSSL_PEM_NO_START_LINE`): never the PEM text.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { KvError } from '../errors/errors.ts';
import { errnoText } from './load-errors.ts';

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unreadable';
}

/** One or more PEM certificates (a CA bundle, a client certificate with its chain). */
export function checkCertificates(pem: string, what: string): void {
  const blocks = pem.match(CERT_BLOCK) ?? [];
  if (blocks.length === 0)
    throw new KvError('KV_ERR_CONFIG', `${what}: not a PEM certificate (no CERTIFICATE block)`);
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (err) {
      throw new KvError('KV_ERR_CONFIG', `${what}: not a PEM certificate (${codeOf(err)})`);
    }
  }
}

export function checkPrivateKey(pem: string, what: string): void {
  try {
    createPrivateKey(pem);
  } catch (err) {
    throw new KvError('KV_ERR_CONFIG', `${what}: not a PEM private key (${codeOf(err)})`);
  }
}

/** The certificate and key make a usable pair (the key is the certificate's). */
export function checkKeyPair(cert: string, key: string, what: string): void {
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw new KvError('KV_ERR_CONFIG', `${what}: do not belong together (${codeOf(err)})`);
  }
}

export type PemCheck = (pem: string, what: string) => void;

/**
 * The PEM file a flag names, read and checked (undefined without a file); the errors name the flag and the file,
 * never the content.
 */
export function pemFlag(flag: string, file: string | undefined, check: PemCheck): string | undefined {
  if (file === undefined) return undefined;
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    const why = errnoText(err) ?? 'unreadable';
    throw new KvError('KV_ERR_CONFIG', `${flag} ${file}: cannot read it (${why})`, { cause: err });
  }
  check(pem, `${flag} ${file}`);
  return pem;
}

/** A serving certificate and its key from two flags' files, both read and checked, and checked as a pair. */
export function pemPairFlags(
  cert: { readonly flag: string; readonly file: string },
  key: { readonly flag: string; readonly file: string },
): { cert: string; key: string } {
  const c = pemFlag(cert.flag, cert.file, checkCertificates) ?? '';
  const k = pemFlag(key.flag, key.file, checkPrivateKey) ?? '';
  checkKeyPair(c, k, `${cert.flag} ${cert.file} and ${key.flag} ${key.file}`);
  return { cert: c, key: k };
}
