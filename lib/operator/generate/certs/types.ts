/** What the certificate planner reads and reports (plan.ts, ca.ts). */
import type { InstallConfig } from '../../config/install-config.ts';
import type { CertificateIssuer } from './issuer.ts';
import type { ChangeReason, PemPair } from './rotation.ts';
import type { LeafName } from './specs.ts';

/** What the Secrets and the ConfigMap hold now; any part may be absent or broken. */
export interface CurrentCertificates {
  readonly ca?: Partial<PemPair>;
  /** The next CA, made and put in the bundle ahead of signing with it (ca.ts). */
  readonly nextCa?: Partial<PemPair>;
  readonly bundle?: string;
  readonly leaves?: Partial<Record<LeafName, Partial<PemPair>>>;
}

export interface PlanInput {
  readonly cfg: InstallConfig;
  readonly current: CurrentCertificates;
  readonly now: Date;
  readonly issuer: CertificateIssuer;
}

export interface CertificateChange {
  readonly certificate: 'ca' | 'nextCa' | 'bundle' | LeafName;
  readonly reason: ChangeReason;
}
