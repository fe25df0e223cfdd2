/**
 * What the installed Secrets and bundle ConfigMap hold now, for the certificate planner (KubeVirt reads the same
 * from its informer caches in apply/core.go). A missing Secret, key or undecodable value is simply absent: the
 * planner issues what is missing. Pure.
 */
import type { KubeObject } from '../../kernel/kube/types.ts';
import type { CurrentCertificates } from '../generate/certs/plan.ts';
import type { PemPair } from '../generate/certs/rotation.ts';
import type { LeafName } from '../generate/certs/specs.ts';
import {
  CA_BUNDLE_KEY,
  CONFIG_MAPS,
  NEXT_CA_CERT_KEY,
  NEXT_CA_KEY_KEY,
  SECRETS,
  TLS_CERT_KEY,
  TLS_KEY_KEY,
} from '../generate/names.ts';

type WithData = KubeObject & { data?: Record<string, string> };

function pairOf(
  secret: WithData | undefined,
  keys: readonly [cert: string, key: string] = [TLS_CERT_KEY, TLS_KEY_KEY],
): Partial<PemPair> | undefined {
  if (secret?.data === undefined) return undefined;
  const text = (k: string): string | undefined => {
    const v = secret.data?.[k];
    return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
  };
  const cert = text(keys[0]);
  const key = text(keys[1]);
  if (cert === undefined && key === undefined) return undefined;
  return { ...(cert !== undefined && { cert }), ...(key !== undefined && { key }) };
}

/** `secret(name)` and `configMap(name)` look the install's objects up (as stored). */
export function currentCertificates(
  secret: (name: string) => KubeObject | undefined,
  configMap: (name: string) => KubeObject | undefined,
): CurrentCertificates {
  const leaves = Object.fromEntries(
    (Object.keys(SECRETS) as (keyof typeof SECRETS)[])
      .filter((n): n is LeafName => n !== 'ca')
      .flatMap((n) => {
        const pair = pairOf(secret(SECRETS[n]));
        return pair === undefined ? [] : [[n, pair]];
      }),
  );
  const bundle = (configMap(CONFIG_MAPS.caBundle) as WithData | undefined)?.data?.[CA_BUNDLE_KEY];
  const caSecret = secret(SECRETS.ca);
  const ca = pairOf(caSecret);
  const nextCa = pairOf(caSecret, [NEXT_CA_CERT_KEY, NEXT_CA_KEY_KEY]);
  return {
    ...(ca !== undefined && { ca }),
    ...(nextCa !== undefined && { nextCa }),
    ...(bundle !== undefined && { bundle }),
    leaves,
  };
}
