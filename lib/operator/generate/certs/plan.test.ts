import { describe, expect, it } from '@jest/globals';
import { certificateBlocks, describeCertificate, isSignedBy } from '../../../kernel/x509/read.ts';
import type { InstallConfig } from '../../config/install-config.ts';
import { installConfig } from '../../testing/config.ts';
import { CA_STAGE_SECONDS } from './ca.ts';
import { X509_ISSUER, type CertificateIssuer } from './issuer.ts';
import { planCertificates, type CertificatePlan, type CurrentCertificates } from './plan.ts';
import type { LeafName } from './specs.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = new Date('2026-03-01T00:00:00Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);
/** CA 7 d (renewed 2 d before its end), leaves 1 d (renewed 12 h before). */
const CFG = installConfig();
const LEAVES: readonly LeafName[] = [
  'api',
  'handlerServer',
  'handlerClient',
  'rewriterClient',
  'controller',
  'operator',
];

/** The production issuer, counting what it issues. */
function countingIssuer(): CertificateIssuer & { readonly issued: string[] } {
  const issued: string[] = [];
  return {
    issued,
    newKeyPair: X509_ISSUER.newKeyPair,
    issue: (spec, signer) => {
      issued.push(spec.commonName);
      return X509_ISSUER.issue(spec, signer);
    },
  };
}

function plan(current: CurrentCertificates, now: Date, cfg: InstallConfig = CFG): CertificatePlan {
  return planCertificates({ cfg, current, now, issuer: X509_ISSUER });
}

const stateOf = (p: CertificatePlan): CurrentCertificates => ({
  ca: p.ca,
  ...(p.nextCa !== undefined && { nextCa: p.nextCa }),
  bundle: p.bundle,
  leaves: p.leaves,
});
/** How long a next CA waits in the bundle before it signs. */
const STAGE = CA_STAGE_SECONDS * 1000;
const reasons = (p: CertificatePlan): Record<string, string> =>
  Object.fromEntries(p.changes.map((c) => [c.certificate, c.reason]));
const allLeaves = (reason: string): Record<string, string> =>
  Object.fromEntries(LEAVES.map((name) => [name, reason]));
const bundleCNs = (p: CertificatePlan): (string | undefined)[] =>
  certificateBlocks(p.bundle).map((b) => describeCertificate(b).subjectCN);

/** Replans every `step` from `from` to `to`, as the operator's requeues would. */
function walk(state: CertificatePlan, from: number, to: number, step = 12 * HOUR): CertificatePlan {
  let p = state;
  for (let t = from; t <= to; t += step) p = plan(stateOf(p), at(t));
  return p;
}

const fresh = plan({}, T0);

describe('planCertificates: a fresh install', () => {
  it('issues the CA, the bundle and every leaf, each for a missing object', () => {
    expect(reasons(fresh)).toEqual({ ca: 'Missing', bundle: 'Missing', ...allLeaves('Missing') });
    expect(describeCertificate(fresh.ca.cert)).toMatchObject({
      subjectCN: `kubevirt.io@${String(T0.getTime() / 1000)}`,
      isCA: true,
      notBefore: T0,
      notAfter: at(7 * DAY),
    });
    expect(fresh.bundle).toBe(fresh.ca.cert);
  });

  it.each<[LeafName, string, string[], string[]]>([
    [
      'api',
      'virt-api.d8-virtualization.pod.cluster.local',
      ['serverAuth'],
      [
        'virt-api',
        'virt-api.d8-virtualization',
        'virt-api.d8-virtualization.svc',
        'virt-api.d8-virtualization.svc.cluster.local',
      ],
    ],
    [
      'handlerServer',
      'kubevirt.io:system:node:virt-handler',
      ['serverAuth'],
      [
        'virt-handler',
        'virt-handler.d8-virtualization',
        'virt-handler.d8-virtualization.svc',
        'virt-handler.d8-virtualization.svc.cluster.local',
      ],
    ],
    ['handlerClient', 'kubevirt.io:system:client:virt-handler', ['clientAuth'], []],
    ['rewriterClient', 'kube-api-rewriter', ['clientAuth'], []],
    [
      'controller',
      'virt-controller.d8-virtualization.pod.cluster.local',
      ['serverAuth'],
      [
        'kubevirt-prometheus-metrics',
        'kubevirt-prometheus-metrics.d8-virtualization',
        'kubevirt-prometheus-metrics.d8-virtualization.svc',
        'kubevirt-prometheus-metrics.d8-virtualization.svc.cluster.local',
      ],
    ],
    [
      'operator',
      'kubevirt-operator-webhook.d8-virtualization.pod.cluster.local',
      ['serverAuth'],
      [
        'kubevirt-operator-webhook',
        'kubevirt-operator-webhook.d8-virtualization',
        'kubevirt-operator-webhook.d8-virtualization.svc',
        'kubevirt-operator-webhook.d8-virtualization.svc.cluster.local',
      ],
    ],
  ])('%s: CN %s, %j, its names, signed by the CA for a day', (name, cn, usage, dnsNames) => {
    const leaf = fresh.leaves[name];
    expect(describeCertificate(leaf.cert)).toMatchObject({
      subjectCN: cn,
      issuerCN: describeCertificate(fresh.ca.cert).subjectCN,
      isCA: false,
      extKeyUsage: usage,
      dnsNames,
      ipAddresses: [],
      notBefore: T0,
      notAfter: at(DAY),
    });
    expect(isSignedBy(leaf.cert, fresh.ca.cert)).toBe(true);
  });

  it('asks to be run again when the first leaf is 12 h from its end', () => {
    expect(fresh.nextRotation).toEqual(at(12 * HOUR));
  });
});

describe('planCertificates: rotation', () => {
  it('keeps everything, issuing nothing, before anything falls due', () => {
    const issuer = countingIssuer();
    const again = planCertificates({ cfg: CFG, current: stateOf(fresh), now: at(12 * HOUR - 1), issuer });
    expect(again).toEqual({ ...fresh, changes: [] });
    expect(issuer.issued).toEqual([]);
  });

  it('reissues a leaf within its renew-before, and only it', () => {
    const renewed = plan(stateOf(fresh), at(13 * HOUR));
    expect(reasons(renewed)).toEqual(allLeaves('Expiring'));
    const mixed = { ...stateOf(renewed), leaves: { ...renewed.leaves, controller: fresh.leaves.controller } };
    const next = plan(mixed, at(14 * HOUR));
    expect(next.changes).toEqual([{ certificate: 'controller', reason: 'Expiring' }]);
    expect(describeCertificate(next.leaves.controller.cert).notAfter).toEqual(at(38 * HOUR));
    expect(next.leaves.api).toEqual(renewed.leaves.api);
    expect(next.ca).toEqual(fresh.ca);
  });

  it('puts the next CA in the bundle within the renew-before, and signs with it only once it has waited there', () => {
    const before = walk(fresh, 12 * HOUR, 4.5 * DAY);
    expect(before.ca).toEqual(fresh.ca);
    const staged = plan(stateOf(before), at(5 * DAY));
    // The leaves fall due too (issued at 4.5 d for a day): the CA that still signs renews them.
    expect(reasons(staged)).toEqual({ nextCa: 'Expiring', bundle: 'CAReplaced', ...allLeaves('Expiring') });
    expect(staged.ca).toEqual(before.ca);
    for (const name of LEAVES) expect(isSignedBy(staged.leaves[name].cert, before.ca.cert)).toBe(true);
    expect(bundleCNs(staged)).toEqual([
      `kubevirt.io@${String(at(5 * DAY).getTime() / 1000)}`,
      describeCertificate(fresh.ca.cert).subjectCN,
    ]);
    expect(staged.nextRotation).toEqual(at(5 * DAY + STAGE));
    // Still waiting: nothing changes.
    const waiting = plan(stateOf(staged), at(5 * DAY + STAGE - 1000));
    expect({ ...waiting, changes: [] }).toEqual({ ...staged, changes: [] });
    expect(waiting.changes).toEqual([]);

    const rotated = plan(stateOf(waiting), at(5 * DAY + STAGE));
    expect(reasons(rotated)).toEqual({ ca: 'Expiring', ...allLeaves('NotSignedByCA') });
    expect(rotated.ca).toEqual(staged.nextCa);
    expect(rotated.nextCa).toBeUndefined();
    expect(rotated.bundle).toBe(staged.bundle);
    for (const name of LEAVES) expect(isSignedBy(rotated.leaves[name].cert, rotated.ca.cert)).toBe(true);
    const trusted = (cert: string): boolean =>
      certificateBlocks(rotated.bundle).some((ca) => isSignedBy(cert, ca));
    expect(
      LEAVES.every((name) => trusted(before.leaves[name].cert) && trusted(rotated.leaves[name].cert)),
    ).toBe(true);
    expect(rotated.nextRotation).toEqual(at(5.5 * DAY + STAGE));
  });

  it('drops an old CA from the bundle once it has expired, though the overlap lasts', () => {
    const staged = plan(stateOf(fresh), at(6 * DAY));
    const late = plan(stateOf(staged), at(6 * DAY + STAGE));
    expect(reasons(late)).toEqual({ ca: 'Expiring', ...allLeaves('NotSignedByCA') });
    expect(late.nextRotation).toEqual(at(6.5 * DAY + STAGE));
    const kept = plan(stateOf(late), at(7 * DAY - 1000));
    expect(bundleCNs(kept)).toHaveLength(2);
    const later = plan(stateOf(kept), at(7 * DAY));
    expect(reasons(later)).toEqual({ bundle: 'Rebuilt' });
    expect(later.bundle).toBe(later.ca.cert);
  });

  it('replaces an expired CA at once: no peer can trust it any more', () => {
    const gone = plan(stateOf(fresh), at(7 * DAY));
    expect(reasons(gone)).toEqual({ ca: 'Expiring', bundle: 'CAReplaced', ...allLeaves('NotSignedByCA') });
    expect(gone.nextCa).toBeUndefined();
  });

  it('drops an old CA still valid once the new one is older than the overlap (the CA renew-before)', () => {
    const replaced = plan({ ...stateOf(fresh), ca: { ...fresh.ca, key: fresh.leaves.api.key } }, at(DAY));
    expect(reasons(replaced)).toMatchObject({ ca: 'KeyMismatch', bundle: 'CAReplaced' });
    expect(bundleCNs(replaced)).toHaveLength(2);
    expect(replaced.nextRotation).toEqual(at(DAY + 12 * HOUR));
    const kept = plan(stateOf(replaced), at(3 * DAY - 1000));
    expect(bundleCNs(kept)).toHaveLength(2);
    const dropped = plan(stateOf(kept), at(3 * DAY));
    expect(dropped.bundle).toBe(dropped.ca.cert);
  });
});

describe('planCertificates: what no longer matches', () => {
  it('reissues the serving certificates that name the namespace after it changes', () => {
    const moved = plan(stateOf(fresh), at(HOUR), installConfig({ namespace: 'kubevirt' }));
    expect(reasons(moved)).toEqual({
      api: 'SpecChanged',
      handlerServer: 'SpecChanged',
      controller: 'SpecChanged',
      operator: 'SpecChanged',
    });
    expect(describeCertificate(moved.leaves.api.cert).dnsNames).toContain('virt-api.kubevirt.svc');
  });

  it.each<[string, CurrentCertificates, Record<string, string>]>([
    [
      'a leaf key that is not its certificate’s',
      { leaves: { api: { ...fresh.leaves.api, key: fresh.leaves.operator.key } } },
      { api: 'KeyMismatch' },
    ],
    [
      'a leaf that is garbage',
      { leaves: { api: { cert: 'garbage', key: fresh.leaves.api.key } } },
      { api: 'Unparsable' },
    ],
    ['a leaf without its key', { leaves: { api: { cert: fresh.leaves.api.cert } } }, { api: 'Missing' }],
    ['a leaf another CA signed', { leaves: { api: plan({}, T0).leaves.api } }, { api: 'NotSignedByCA' }],
    [
      'a client certificate in the serving slot',
      { leaves: { api: fresh.leaves.handlerClient } },
      { api: 'SpecChanged' },
    ],
    ['a bundle that is garbage', { bundle: 'garbage' }, { bundle: 'Rebuilt' }],
    ['a bundle without the CA', { bundle: '' }, { bundle: 'Missing' }],
  ])('%s', (_name, change, expected) => {
    const state = stateOf(fresh);
    const current = { ...state, ...change, leaves: { ...state.leaves, ...change.leaves } };
    const next = plan(current, at(HOUR));
    expect(reasons(next)).toEqual(expected);
    expect(next.bundle).toBe(fresh.ca.cert);
  });

  it.each<[string, NonNullable<CurrentCertificates['ca']>, string]>([
    ['garbage', { cert: 'garbage', key: 'garbage' }, 'Unparsable'],
    ['a key that is not its certificate’s', { ...fresh.ca, key: fresh.leaves.api.key }, 'KeyMismatch'],
    ['a leaf in the CA slot', fresh.leaves.api, 'SpecChanged'],
  ])('replaces a CA that is %s, and every leaf with it', (_name, ca, reason) => {
    const next = plan({ ...stateOf(fresh), ca }, at(HOUR));
    expect(reasons(next)).toMatchObject({ ca: reason, ...allLeaves('NotSignedByCA') });
    expect(describeCertificate(next.ca.cert).isCA).toBe(true);
  });

  it('reissues certificates that outlive a shortened validity', () => {
    const shorter = installConfig({
      certificateRotation: {
        caValiditySeconds: 3 * 86_400,
        caRenewBeforeSeconds: 86_400,
        certValiditySeconds: 6 * 3600,
        certRenewBeforeSeconds: 3600,
      },
    });
    const staged = plan(stateOf(fresh), at(HOUR), shorter);
    expect(reasons(staged)).toEqual({
      nextCa: 'ValidityTooLong',
      bundle: 'CAReplaced',
      ...allLeaves('ValidityTooLong'),
    });
    expect(describeCertificate(staged.leaves.api.cert).notAfter).toEqual(at(7 * HOUR));
    const next = plan(stateOf(staged), at(HOUR + STAGE), shorter);
    expect(reasons(next)).toEqual({ ca: 'ValidityTooLong', ...allLeaves('NotSignedByCA') });
    expect(describeCertificate(next.leaves.api.cert).notAfter).toEqual(at(7 * HOUR + STAGE));
  });
});

describe('planCertificates: leaves never outlive their CA', () => {
  const long = installConfig({
    certificateRotation: {
      caValiditySeconds: 7 * 86_400,
      caRenewBeforeSeconds: 2 * 86_400,
      certValiditySeconds: 10 * 86_400,
      certRenewBeforeSeconds: 3 * 86_400,
    },
  });

  it('clips them to the CA, renews them with it, and does not reissue them before', () => {
    const first = plan({}, T0, long);
    for (const name of LEAVES)
      expect(describeCertificate(first.leaves[name].cert).notAfter).toEqual(at(7 * DAY));
    expect(first.nextRotation).toEqual(at(5 * DAY));
    expect(plan(stateOf(first), at(5 * DAY - 1000), long).changes).toEqual([]);
    const staged = plan(stateOf(first), at(5 * DAY), long);
    expect(reasons(staged)).toEqual({ nextCa: 'Expiring', bundle: 'CAReplaced' });
    expect(reasons(plan(stateOf(staged), at(5 * DAY + STAGE), long))).toMatchObject({
      ca: 'Expiring',
      api: 'NotSignedByCA',
    });
  });
});

describe('planCertificates refuses a rotation that would never settle', () => {
  it.each([
    { certValiditySeconds: 3600, certRenewBeforeSeconds: 3600 },
    { caValiditySeconds: 0 },
    { caRenewBeforeSeconds: -1 },
  ])('%j', (over) => {
    const cfg = installConfig({ certificateRotation: { ...CFG.certificateRotation, ...over } });
    expect(() => plan({}, T0, cfg)).toThrow(expect.objectContaining({ code: 'KV_ERR_INVALID' }));
  });
});
