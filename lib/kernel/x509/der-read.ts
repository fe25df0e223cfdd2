/**
 * Just enough DER reading to sign with a CA's certificate: the issuer's subject Name, copied byte for byte, and
 * its subjectKeyIdentifier, which node:crypto's X509Certificate does not expose. Mirrors what Go's
 * x509.CreateCertificate takes from the parent (RawSubject, SubjectKeyId).
 */
import { KvError } from '../errors/errors.ts';

/** One TLV inside a buffer: its identifier octet and where its contents start and end. */
interface Tlv {
  readonly tag: number;
  readonly start: number;
  readonly contentStart: number;
  readonly end: number;
}

const EXTENSIONS_TAG = 0xa3;
const VERSION_TAG = 0xa0;
const SUBJECT_KEY_ID = Buffer.from([0x06, 0x03, 0x55, 0x1d, 0x0e]);

function broken(what: string): KvError {
  return new KvError('KV_ERR_DECODE', `DER: ${what}`);
}

function readTlv(buf: Buffer, offset: number, limit: number): Tlv {
  const tag = buf[offset];
  const first = buf[offset + 1];
  if (tag === undefined || first === undefined || offset + 2 > limit) throw broken('truncated header');
  if ((tag & 0x1f) === 0x1f) throw broken('high tag numbers are not supported');
  let length = first;
  let contentStart = offset + 2;
  if (first >= 0x80) {
    const octets = first & 0x7f;
    if (octets === 0 || octets > 4) throw broken('indefinite or oversized length');
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + (buf[contentStart + i] ?? 0);
    contentStart += octets;
  }
  const end = contentStart + length;
  if (end > limit) throw broken('contents run past their container');
  return { tag, start: offset, contentStart, end };
}

function childrenOf(buf: Buffer, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.contentStart; at < parent.end;) {
    const child = readTlv(buf, at, parent.end);
    out.push(child);
    at = child.end;
  }
  return out;
}

const bytesOf = (buf: Buffer, t: Tlv): Buffer => buf.subarray(t.start, t.end);

interface IssuerParts {
  /** The subject Name TLV, to become the issued certificate's issuer. */
  readonly subject: Buffer;
  /** The subjectKeyIdentifier's key id, when the certificate has one. */
  readonly subjectKeyId?: Buffer;
}

/** The subject and subjectKeyIdentifier of a DER certificate. */
export function issuerParts(der: Buffer): IssuerParts {
  const cert = readTlv(der, 0, der.length);
  const tbs = childrenOf(der, cert)[0];
  if (tbs === undefined) throw broken('certificate without tbsCertificate');
  const fields = childrenOf(der, tbs);
  const skip = fields[0]?.tag === VERSION_TAG ? 1 : 0;
  const subject = fields[skip + 4];
  if (subject === undefined) throw broken('tbsCertificate without subject');
  const keyId = subjectKeyId(
    der,
    fields.find((f) => f.tag === EXTENSIONS_TAG),
  );
  return { subject: Buffer.from(bytesOf(der, subject)), ...(keyId !== undefined && { subjectKeyId: keyId }) };
}

function subjectKeyId(der: Buffer, extensions: Tlv | undefined): Buffer | undefined {
  const list = extensions === undefined ? undefined : childrenOf(der, extensions)[0];
  if (list === undefined) return undefined;
  for (const ext of childrenOf(der, list)) {
    const parts = childrenOf(der, ext);
    const [oid, value] = [parts[0], parts[parts.length - 1]];
    if (oid === undefined || value === undefined || !bytesOf(der, oid).equals(SUBJECT_KEY_ID)) continue;
    const inner = readTlv(der, value.contentStart, value.end);
    return Buffer.from(der.subarray(inner.contentStart, inner.end));
  }
  return undefined;
}
