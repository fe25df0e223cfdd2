/**
 * The rotation rules: whether a stored CA or leaf can be kept, why not, and when it falls due. Mirrors
 * KubeVirt's apply/core.go certificationNeedsRotation and components.NextRotationDeadline, with the names and
 * usage of each certificate checked too, so a namespace change reissues what names the old one.
 */
import {
  certificateBlocks,
  describeCertificate,
  isSignedBy,
  keyMatchesCertificate,
  type CertificateFacts,
} from '../../../kernel/x509/read.ts';
import { KvError } from '../../../kernel/errors/errors.ts';
import type { CertificateRotation } from '../../config/install-config.ts';
import type { LeafSpec } from './specs.ts';

export interface PemPair {
  readonly cert: string;
  readonly key: string;
}

/**
 * Why a certificate was issued again (or the bundle rewritten): CamelCase, for events. `CAReplaced` and
 * `Rebuilt` are the bundle's; `NotSignedByCA` is every leaf's after a new CA.
 */
export type ChangeReason =
  | 'Missing'
  | 'Unparsable'
  | 'KeyMismatch'
  | 'NotSignedByCA'
  | 'SpecChanged'
  | 'Expiring'
  | 'ValidityTooLong'
  | 'CAReplaced'
  | 'Rebuilt';

/** A usable certificate: its stored pair, its first PEM block and what it says. */
export interface Held {
  readonly pair: PemPair;
  readonly block: string;
  readonly facts: CertificateFacts;
}

const SECOND = 1000;

/** The pair read, or why it cannot be used (a key that is not the certificate's included). */
export function heldOf(pair: Partial<PemPair> | undefined): Held | ChangeReason {
  if (pair?.cert === undefined || pair.key === undefined || pair.cert === '' || pair.key === '')
    return 'Missing';
  const block = certificateBlocks(pair.cert)[0];
  if (block === undefined) return 'Unparsable';
  let facts: CertificateFacts;
  try {
    facts = describeCertificate(block);
  } catch {
    return 'Unparsable';
  }
  if (!keyMatchesCertificate(block, pair.key)) return 'KeyMismatch';
  return { pair: { cert: pair.cert, key: pair.key }, block, facts };
}

export function caDeadline(ca: CertificateFacts, r: CertificateRotation): number {
  return ca.notAfter.getTime() - r.caRenewBeforeSeconds * SECOND;
}

/**
 * A leaf clipped to its CA's lifetime is renewed with the CA (renewing it alone would give the same end): when the
 * CA is replaced, at `caDue` (its deadline, or when a waiting next CA starts to sign).
 */
export function leafDeadline(
  leaf: CertificateFacts,
  ca: CertificateFacts,
  r: CertificateRotation,
  caDue?: number,
): number {
  if (leaf.notAfter.getTime() >= ca.notAfter.getTime()) return caDue ?? caDeadline(ca, r);
  return leaf.notAfter.getTime() - r.certRenewBeforeSeconds * SECOND;
}

/** Why the stored CA must be replaced at `now` (ms), or undefined to keep it. */
export function caReason(
  held: Held | ChangeReason,
  r: CertificateRotation,
  now: number,
): ChangeReason | undefined {
  if (typeof held === 'string') return held;
  if (!held.facts.isCA) return 'SpecChanged';
  if (now >= caDeadline(held.facts, r)) return 'Expiring';
  if (held.facts.notAfter.getTime() > now + r.caValiditySeconds * SECOND) return 'ValidityTooLong';
  return undefined;
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

function matches(facts: CertificateFacts, spec: LeafSpec): boolean {
  return (
    !facts.isCA &&
    facts.subjectCN === spec.commonName &&
    facts.ipAddresses.length === 0 &&
    sameSet(facts.dnsNames, spec.dnsNames) &&
    sameSet(facts.extKeyUsage, spec.extKeyUsage)
  );
}

interface LeafCheck {
  readonly spec: LeafSpec;
  readonly ca: Held;
  readonly rotation: CertificateRotation;
  /** The instant, in ms. */
  readonly now: number;
  /** When the CA is replaced, if not at its deadline (a next CA waiting to sign). */
  readonly caDue?: number | undefined;
}

/** Why the stored leaf must be issued again, or undefined to keep it. */
export function leafReason(held: Held | ChangeReason, c: LeafCheck): ChangeReason | undefined {
  if (typeof held === 'string') return held;
  if (!isSignedBy(held.block, c.ca.block)) return 'NotSignedByCA';
  if (!matches(held.facts, c.spec)) return 'SpecChanged';
  if (c.now >= leafDeadline(held.facts, c.ca.facts, c.rotation, c.caDue)) return 'Expiring';
  const longest = Math.min(c.now + c.rotation.certValiditySeconds * SECOND, c.ca.facts.notAfter.getTime());
  if (held.facts.notAfter.getTime() > longest) return 'ValidityTooLong';
  return undefined;
}

/** A certificate just issued, as held; refusing it is a programming error. */
export function issued(cert: string, key: string): Held {
  const held = heldOf({ cert, key });
  if (typeof held === 'string')
    throw new KvError('KV_ERR_INTERNAL', `a certificate just issued is refused: ${held}`);
  return held;
}

export const wholeSeconds = (d: Date): number => Math.floor(d.getTime() / SECOND) * SECOND;
