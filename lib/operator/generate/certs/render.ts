/**
 * The planned certificates as the objects the operator applies: one kubernetes.io/tls Secret per certificate
 * (the CA's included) and the CA bundle ConfigMap. Mirrors KubeVirt's components/secrets.go NewCACertSecrets,
 * NewCertSecrets and NewCAConfigMaps with the data apply/core.go fills in.
 */
import type { InstallConfig, Rendered } from '../../config/install-config.ts';
import { metadataFor } from '../meta.ts';
import {
  CA_BUNDLE_KEY,
  CONFIG_MAPS,
  NEXT_CA_CERT_KEY,
  NEXT_CA_KEY_KEY,
  SECRETS,
  TLS_CERT_KEY,
  TLS_KEY_KEY,
} from '../names.ts';
import type { CertificatePlan } from './plan.ts';
import type { PemPair } from './rotation.ts';
import type { LeafName } from './specs.ts';

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

function tlsSecret(cfg: InstallConfig, name: string, pair: PemPair, next?: PemPair): Rendered {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: metadataFor(cfg, { name }),
    type: 'kubernetes.io/tls',
    data: {
      [TLS_CERT_KEY]: base64(pair.cert),
      [TLS_KEY_KEY]: base64(pair.key),
      ...(next !== undefined && {
        [NEXT_CA_CERT_KEY]: base64(next.cert),
        [NEXT_CA_KEY_KEY]: base64(next.key),
      }),
    },
  };
}

/** The CA's Secret (with the next CA while one waits), each leaf's in the planner's order, then the bundle ConfigMap. */
export function certificateObjects(cfg: InstallConfig, plan: CertificatePlan): Rendered[] {
  const leaves = Object.entries(plan.leaves) as [LeafName, PemPair][];
  return [
    tlsSecret(cfg, SECRETS.ca, plan.ca, plan.nextCa),
    ...leaves.map(([name, pair]) => tlsSecret(cfg, SECRETS[name], pair)),
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: metadataFor(cfg, { name: CONFIG_MAPS.caBundle }),
      data: { [CA_BUNDLE_KEY]: plan.bundle },
    },
  ];
}
