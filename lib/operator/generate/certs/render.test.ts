import { describe, expect, it } from '@jest/globals';
import { certificateBlocks, describeCertificate } from '../../../kernel/x509/read.ts';
import { goldens } from '../../../kernel/testing/golden.ts';
import type { Rendered } from '../../config/install-config.ts';
import { installConfig } from '../../testing/config.ts';
import { X509_ISSUER } from './issuer.ts';
import { planCertificates } from './plan.ts';
import { certificateObjects } from './render.ts';

const golden = goldens(import.meta.url);
const cfg = installConfig();
const plan = planCertificates({
  cfg,
  current: {},
  now: new Date('2026-03-01T00:00:00Z'),
  issuer: X509_ISSUER,
});
const objects = certificateObjects(cfg, plan);

const fromBase64 = (value: unknown): string => Buffer.from(String(value), 'base64').toString('utf8');

/** A PEM text as a placeholder naming what it holds, so the golden compares structure, not random bytes. */
function placeholder(pem: string): string {
  if (pem.includes('PRIVATE KEY')) return '<PEM private key>';
  return certificateBlocks(pem)
    .map((block) => `<PEM certificate CN=${describeCertificate(block).subjectCN ?? ''}>`)
    .join(' ');
}

function withPlaceholders(o: Rendered): Rendered {
  const data = o['data'] as Record<string, string>;
  const decode = o.kind === 'Secret' ? fromBase64 : (v: string): string => v;
  return {
    ...o,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, placeholder(decode(v))])),
  };
}

describe('certificateObjects', () => {
  it('renders the Secrets and the bundle ConfigMap (golden, PEM data as placeholders)', () => {
    golden.expectJson('objects.json', objects.map(withPlaceholders));
  });

  it('carries the planned PEM texts, base64-encoded in the Secrets and as text in the ConfigMap', () => {
    const byName = (kind: string, name: string): Record<string, string> =>
      objects.find((o) => o.kind === kind && o.metadata.name === name)?.['data'] as Record<string, string>;
    expect(fromBase64(byName('Secret', 'kubevirt-ca')['tls.crt'])).toBe(plan.ca.cert);
    expect(fromBase64(byName('Secret', 'kubevirt-ca')['tls.key'])).toBe(plan.ca.key);
    expect(fromBase64(byName('Secret', 'kubevirt-virt-api-certs')['tls.crt'])).toBe(plan.leaves.api.cert);
    expect(fromBase64(byName('Secret', 'kubevirt-operator-certs')['tls.key'])).toBe(plan.leaves.operator.key);
    expect(byName('ConfigMap', 'kubevirt-ca')['ca-bundle']).toBe(plan.bundle);
  });
});
