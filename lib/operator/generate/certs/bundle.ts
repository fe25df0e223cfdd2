/**
 * The CA bundle: the current CA first, then the earlier CAs clients must still trust while certificates they
 * signed may be in use. Mirrors KubeVirt's components.MergeCABundle (newest first, no duplicates, expired ones
 * dropped, the old ones kept only for the overlap after the current CA was made, at most 50).
 */
import { certificateBlocks, describeCertificate, type CertificateFacts } from '../../../kernel/x509/read.ts';

const MAX_CERTIFICATES = 50;

export interface BundleInput {
  /** The current CA's PEM and facts. */
  readonly current: { readonly pem: string; readonly facts: CertificateFacts };
  /** Earlier CAs in any order: the bundle as stored and the CA just replaced; unparsable blocks are dropped. */
  readonly earlier: readonly string[];
  readonly now: Date;
  /** How long after the current CA's notBefore the earlier ones are kept (the CA's renew-before). */
  readonly overlapSeconds: number;
}

export interface Bundle {
  readonly pem: string;
  /** When the next earlier CA leaves the bundle (it expires or the overlap ends); absent with none kept. */
  readonly nextDrop?: Date;
}

function parsed(pem: string): { pem: string; facts: CertificateFacts }[] {
  return certificateBlocks(pem).flatMap((block) => {
    try {
      return [{ pem: block, facts: describeCertificate(block) }];
    } catch {
      return [];
    }
  });
}

export function mergeBundle(input: BundleInput): Bundle {
  const { current, now } = input;
  const overlapEnd = current.facts.notBefore.getTime() + input.overlapSeconds * 1000;
  if (overlapEnd <= now.getTime()) return { pem: current.pem };
  const seen = new Set([current.facts.fingerprint256]);
  const kept = input.earlier
    .flatMap(parsed)
    .filter(({ facts }) => {
      const fresh = facts.isCA && facts.notAfter > now && !seen.has(facts.fingerprint256);
      seen.add(facts.fingerprint256);
      return fresh;
    })
    .sort(
      (a, b) =>
        b.facts.notBefore.getTime() - a.facts.notBefore.getTime() ||
        a.facts.fingerprint256.localeCompare(b.facts.fingerprint256),
    )
    .slice(0, MAX_CERTIFICATES - 1);
  if (kept.length === 0) return { pem: current.pem };
  const nextDrop = Math.min(overlapEnd, ...kept.map(({ facts }) => facts.notAfter.getTime()));
  return { pem: [current, ...kept].map((c) => c.pem).join(''), nextDrop: new Date(nextDrop) };
}
