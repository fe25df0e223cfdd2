import { describe, expect, it } from '@jest/globals';
import { describeCertificate } from '../../../kernel/x509/read.ts';
import { mergeBundle } from './bundle.ts';
import { X509_ISSUER } from './issuer.ts';

const DAY = 86_400_000;
const T0 = Date.parse('2026-03-01T00:00:00Z');

/** A self-signed certificate named `cn`, valid for `days` from T0 + `fromDay` days. */
function selfSigned(cn: string, fromDay: number, days: number, ca = true): string {
  const key = X509_ISSUER.newKeyPair();
  const spec = {
    commonName: cn,
    notBefore: new Date(T0 + fromDay * DAY),
    notAfter: new Date(T0 + (fromDay + days) * DAY),
    ca,
    extKeyUsage: [],
    dnsNames: [],
    ipAddresses: [],
    publicKeyPem: key.publicKeyPem,
  };
  return X509_ISSUER.issue(spec, { kind: 'self', keyPem: key.privateKeyPem });
}

const current = selfSigned('current', 4, 7);
const previous = selfSigned('previous', 2, 7);
const oldest = selfSigned('oldest', 0, 7);
const expired = selfSigned('expired', -7, 7);
const notCa = selfSigned('not-a-ca', 3, 7, false);

function merge(earlier: string[], nowDay = 5, overlapDays = 2): { cns: string[]; nextDrop?: Date } {
  const bundle = mergeBundle({
    current: { pem: current, facts: describeCertificate(current) },
    earlier,
    now: new Date(T0 + nowDay * DAY),
    overlapSeconds: overlapDays * 86_400,
  });
  const cns = bundle.pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n/g) ?? [];
  return {
    cns: cns.map((pem) => describeCertificate(pem).subjectCN ?? ''),
    ...(bundle.nextDrop !== undefined && { nextDrop: bundle.nextDrop }),
  };
}

describe('mergeBundle', () => {
  it.each<[string, string[], string[]]>([
    ['nothing earlier', [], ['current']],
    ['newest first, whatever the stored order', [oldest + previous], ['current', 'previous', 'oldest']],
    [
      'no duplicates, the current CA once',
      [previous + current + previous, previous],
      ['current', 'previous'],
    ],
    ['expired ones dropped', [expired + previous], ['current', 'previous']],
    ['certificates that are no CA dropped', [notCa + previous], ['current', 'previous']],
    [
      'garbage between blocks ignored',
      [`junk\n${previous}junk\n-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n`],
      ['current', 'previous'],
    ],
  ])('%s', (_name, earlier, cns) => {
    expect(merge(earlier).cns).toEqual(cns);
  });

  it('keeps the earlier CAs only for the overlap after the current one was made', () => {
    expect(merge([previous], 5.9).cns).toEqual(['current', 'previous']);
    expect(merge([previous], 6).cns).toEqual(['current']);
  });

  it('says when the next earlier CA leaves: its end, or the end of the overlap if sooner', () => {
    expect(merge([oldest + previous]).nextDrop).toEqual(new Date(T0 + 6 * DAY));
    expect(merge([oldest + previous], 5, 4).nextDrop).toEqual(new Date(T0 + 7 * DAY));
    expect(merge([]).nextDrop).toBeUndefined();
  });

  it('holds at most 50 certificates', () => {
    const many = Array.from({ length: 60 }, (_, i) => selfSigned(`old-${String(i)}`, 1 + i / 100, 7));
    const { cns } = merge(many);
    expect(cns).toHaveLength(50);
    expect(cns.slice(0, 2)).toEqual(['current', 'old-59']);
  });
});
