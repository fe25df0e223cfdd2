/**
 * Which certificates to keep and which to issue, from what the Secrets and the bundle ConfigMap hold now and
 * the clock: the CA, the bundle and every leaf, what changed and why, and when to look again. Pure apart from
 * the injected issuer. Mirrors KubeVirt's apply/core.go createOrUpdateComponentsWithCertificates.
 */
import { KvError } from '../../../kernel/errors/errors.ts';
import type { CertificateRotation, InstallConfig } from '../../config/install-config.ts';
import { mergeBundle } from './bundle.ts';
import type { CertificateIssuer } from './issuer.ts';
import {
  caDeadline,
  caReason,
  heldOf,
  leafDeadline,
  leafReason,
  type ChangeReason,
  type Held,
  type PemPair,
} from './rotation.ts';
import { caCommonName, leafSpecs, type LeafName, type LeafSpec } from './specs.ts';

/** What the Secrets and the ConfigMap hold now; any part may be absent or broken. */
export interface CurrentCertificates {
  readonly ca?: Partial<PemPair>;
  readonly bundle?: string;
  readonly leaves?: Partial<Record<LeafName, Partial<PemPair>>>;
}

export interface PlanInput {
  readonly cfg: InstallConfig;
  readonly current: CurrentCertificates;
  readonly now: Date;
  readonly issuer: CertificateIssuer;
}

interface CertificateChange {
  readonly certificate: 'ca' | 'bundle' | LeafName;
  readonly reason: ChangeReason;
}

export interface CertificatePlan {
  readonly ca: PemPair;
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

function issued(cert: string, key: string): Held {
  const held = heldOf({ cert, key });
  if (typeof held === 'string')
    throw new KvError('KV_ERR_INTERNAL', `a certificate just issued is refused: ${held}`);
  return held;
}

const wholeSeconds = (d: Date): number => Math.floor(d.getTime() / SECOND) * SECOND;

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

interface CaPlan {
  readonly ca: Held;
  /** The stored CA when it could be read: kept, or kept in the bundle a while after its replacement. */
  readonly stored: Held | undefined;
  readonly why: ChangeReason | undefined;
}

function planCa(input: PlanInput, rotation: CertificateRotation): CaPlan {
  const read = heldOf(input.current.ca);
  const stored = typeof read === 'string' ? undefined : read;
  const why = caReason(read, rotation, input.now.getTime());
  return { ca: why === undefined && stored !== undefined ? stored : issueCa(input), stored, why };
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

function planLeaves(input: PlanInput, ca: Held, rotation: CertificateRotation): LeafPlan {
  const plan: LeafPlan = { leaves: {} as Record<LeafName, PemPair>, changes: [], deadlines: [] };
  for (const [name, spec] of Object.entries(leafSpecs(input.cfg)) as [LeafName, LeafSpec][]) {
    const held = heldOf(input.current.leaves?.[name]);
    const reason = leafReason(held, { spec, ca, rotation, now: input.now.getTime() });
    const leaf = reason === undefined && typeof held !== 'string' ? held : issueLeaf(input, spec, ca);
    if (reason !== undefined) plan.changes.push({ certificate: name, reason });
    plan.leaves[name] = leaf.pair;
    plan.deadlines.push(leafDeadline(leaf.facts, ca.facts, rotation));
  }
  return plan;
}

export function planCertificates(input: PlanInput): CertificatePlan {
  const rotation = checkedRotation(input.cfg.certificateRotation);
  const { ca, stored, why } = planCa(input, rotation);
  const changes: CertificateChange[] = why === undefined ? [] : [{ certificate: 'ca', reason: why }];

  const before = input.current.bundle;
  const bundle = mergeBundle({
    current: { pem: ca.block, facts: ca.facts },
    earlier: [before ?? '', stored?.block ?? ''],
    now: input.now,
    overlapSeconds: rotation.caRenewBeforeSeconds,
  });
  if (bundle.pem !== before)
    changes.push({ certificate: 'bundle', reason: bundleReason(before, why !== undefined) });

  const leaves = planLeaves(input, ca, rotation);
  const deadlines = [
    caDeadline(ca.facts, rotation),
    bundle.nextDrop?.getTime() ?? Infinity,
    ...leaves.deadlines,
  ];
  return {
    ca: ca.pair,
    bundle: bundle.pem,
    leaves: leaves.leaves,
    changes: [...changes, ...leaves.changes],
    nextRotation: new Date(Math.min(...deadlines)),
  };
}
