/**
 * Which certificates to keep and which to issue, from what the Secrets and the bundle ConfigMap hold now and
 * the clock: the CA, the bundle and every leaf, what changed and why, and when to look again. Pure apart from
 * the injected issuer. Mirrors KubeVirt's apply/core.go createOrUpdateComponentsWithCertificates.
 */
import { KvError } from '../../../kernel/errors/errors.ts';
import type { CertificateRotation } from '../../config/install-config.ts';
import { mergeBundle } from './bundle.ts';
import { planCa } from './ca.ts';
import type { CertificateChange, PlanInput } from './types.ts';
import {
  caDeadline,
  heldOf,
  issued,
  leafDeadline,
  leafReason,
  wholeSeconds,
  type ChangeReason,
  type Held,
  type PemPair,
} from './rotation.ts';
import { leafSpecs, type LeafName, type LeafSpec } from './specs.ts';

export type { CurrentCertificates } from './types.ts';

export interface CertificatePlan {
  readonly ca: PemPair;
  /** The next CA while it waits in the bundle to sign (kept with the CA in its Secret). */
  readonly nextCa?: PemPair;
  /** The bundle's PEM text (the current CA first). */
  readonly bundle: string;
  readonly leaves: Readonly<Record<LeafName, PemPair>>;
  readonly changes: readonly CertificateChange[];
  /** The earliest instant something must be renewed or leave the bundle: requeue then. */
  readonly nextRotation: Date;
}

const SECOND = 1000;

function checkedRotation(r: CertificateRotation): CertificateRotation {
  const ok = (validity: number, renew: number): boolean =>
    Number.isFinite(validity) && validity > 0 && renew >= 0 && renew < validity;
  if (
    !ok(r.caValiditySeconds, r.caRenewBeforeSeconds) ||
    !ok(r.certValiditySeconds, r.certRenewBeforeSeconds)
  ) {
    throw new KvError(
      'KV_ERR_INVALID',
      'certificate rotation: every renew-before must be shorter than its validity',
    );
  }
  return r;
}

/** KubeVirt's triple.NewSignedCert: valid from the CA's notBefore, and never beyond the CA. */
function issueLeaf(input: PlanInput, spec: LeafSpec, ca: Held): Held {
  const key = input.issuer.newKeyPair();
  const end = wholeSeconds(input.now) + input.cfg.certificateRotation.certValiditySeconds * SECOND;
  const leaf = {
    ...spec,
    notBefore: ca.facts.notBefore,
    notAfter: new Date(Math.min(end, ca.facts.notAfter.getTime())),
    ca: false,
    ipAddresses: [],
    publicKeyPem: key.publicKeyPem,
  };
  const cert = input.issuer.issue(leaf, { kind: 'ca', certPem: ca.block, keyPem: ca.pair.key });
  return issued(cert, key.privateKeyPem);
}

function bundleReason(before: string | undefined, caChanged: boolean): ChangeReason {
  if (before === undefined || before.trim() === '') return 'Missing';
  return caChanged ? 'CAReplaced' : 'Rebuilt';
}

interface LeafPlan {
  readonly leaves: Record<LeafName, PemPair>;
  readonly changes: CertificateChange[];
  /** When each leaf falls due, in ms. */
  readonly deadlines: number[];
}

function planLeaves(input: PlanInput, ca: Held, rotation: CertificateRotation, caDue?: number): LeafPlan {
  const plan: LeafPlan = { leaves: {} as Record<LeafName, PemPair>, changes: [], deadlines: [] };
  for (const [name, spec] of Object.entries(leafSpecs(input.cfg)) as [LeafName, LeafSpec][]) {
    const held = heldOf(input.current.leaves?.[name]);
    const reason = leafReason(held, { spec, ca, rotation, now: input.now.getTime(), caDue });
    const leaf = reason === undefined && typeof held !== 'string' ? held : issueLeaf(input, spec, ca);
    if (reason !== undefined) plan.changes.push({ certificate: name, reason });
    plan.leaves[name] = leaf.pair;
    plan.deadlines.push(leafDeadline(leaf.facts, ca.facts, rotation, caDue));
  }
  return plan;
}

export function planCertificates(input: PlanInput): CertificatePlan {
  const rotation = checkedRotation(input.cfg.certificateRotation);
  const { ca, next, stored, change, promoteAt } = planCa(input, rotation);
  const changes: CertificateChange[] = change === undefined ? [] : [change];

  const before = input.current.bundle;
  // The newest CA leads the bundle: a next one waiting, else the one signing.
  const newest = next ?? ca;
  const bundle = mergeBundle({
    current: { pem: newest.block, facts: newest.facts },
    earlier: [before ?? '', stored?.block ?? '', ca.block],
    now: input.now,
    overlapSeconds: rotation.caRenewBeforeSeconds,
  });
  if (bundle.pem !== before)
    changes.push({ certificate: 'bundle', reason: bundleReason(before, change !== undefined) });

  const leaves = planLeaves(input, ca, rotation, promoteAt);
  const deadlines = [
    promoteAt ?? caDeadline(ca.facts, rotation),
    bundle.nextDrop?.getTime() ?? Infinity,
    ...leaves.deadlines,
  ];
  return {
    ca: ca.pair,
    ...(next !== undefined && { nextCa: next.pair }),
    bundle: bundle.pem,
    leaves: leaves.leaves,
    changes: [...changes, ...leaves.changes],
    nextRotation: new Date(Math.min(...deadlines)),
  };
}
