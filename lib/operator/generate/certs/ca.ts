/**
 * Which CA signs, and the next one. A CA that falls due while still usable (expiring, or outliving a shortened
 * validity) is not replaced at once: a next CA is made and put in the bundle first, and signs only once it has
 * been there CA_STAGE_SECONDS, long enough for every Pod's mounted bundle to hold it (the kubelet refreshes
 * mounted ConfigMaps within about a minute, the roles read their files every 10 s), so no peer meets a
 * certificate of a CA it does not trust yet. KubeVirt reads its bundle from the API and signs with a new CA at
 * once (apply/core.go); mounted files need the wait. A CA that cannot sign (missing, broken, not a CA, its key
 * not its own) or has expired is replaced at once: nothing can be kept waiting on it. Pure apart from the issuer.
 */
import type { CertificateRotation } from '../../config/install-config.ts';
import type { CertificateChange, PlanInput } from './types.ts';
import { caReason, heldOf, issued, wholeSeconds, type Held } from './rotation.ts';
import { caCommonName } from './specs.ts';

export const CA_STAGE_SECONDS = 150;
const SECOND = 1000;

export interface CaPlan {
  /** The CA that signs the leaves now. */
  readonly ca: Held;
  /** The next CA while it waits in the bundle. */
  readonly next?: Held;
  /** The stored CA when it could be read (kept in the bundle a while after it is replaced). */
  readonly stored: Held | undefined;
  readonly change?: CertificateChange;
  /** When the waiting next CA starts to sign (ms). */
  readonly promoteAt?: number;
}

/** KubeVirt's triple.NewCA: a self-signed CA valid from now (whole seconds) for the configured validity. */
function issueCa(input: PlanInput): Held {
  const key = input.issuer.newKeyPair();
  const notBefore = wholeSeconds(input.now);
  const spec = {
    commonName: caCommonName(input.now),
    notBefore: new Date(notBefore),
    notAfter: new Date(notBefore + input.cfg.certificateRotation.caValiditySeconds * SECOND),
    ca: true,
    extKeyUsage: [],
    dnsNames: [],
    ipAddresses: [],
    publicKeyPem: key.publicKeyPem,
  };
  return issued(input.issuer.issue(spec, { kind: 'self', keyPem: key.privateKeyPem }), key.privateKeyPem);
}

/** The stored next CA when it is a usable CA that has not expired. */
function storedNext(input: PlanInput): Held | undefined {
  const next = heldOf(input.current.nextCa);
  if (typeof next === 'string' || !next.facts.isCA) return undefined;
  return next.facts.notAfter.getTime() > input.now.getTime() ? next : undefined;
}

export function planCa(input: PlanInput, rotation: CertificateRotation): CaPlan {
  const now = input.now.getTime();
  const read = heldOf(input.current.ca);
  const stored = typeof read === 'string' ? undefined : read;
  const why = caReason(read, rotation, now);
  if (why === undefined && stored !== undefined) return { ca: stored, stored };
  const next = storedNext(input);
  const canWait = stored !== undefined && stored.facts.isCA && stored.facts.notAfter.getTime() > now;
  if (why === undefined || !canWait) {
    return { ca: next ?? issueCa(input), stored, change: { certificate: 'ca', reason: why ?? 'Missing' } };
  }
  if (next === undefined) {
    const made = issueCa(input);
    const promoteAt = made.facts.notBefore.getTime() + CA_STAGE_SECONDS * SECOND;
    return { ca: stored, next: made, stored, change: { certificate: 'nextCa', reason: why }, promoteAt };
  }
  const promoteAt = next.facts.notBefore.getTime() + CA_STAGE_SECONDS * SECOND;
  if (now >= promoteAt) return { ca: next, stored, change: { certificate: 'ca', reason: why } };
  return { ca: stored, next, stored, promoteAt };
}
