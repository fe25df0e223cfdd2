import { describe, expect, it } from '@jest/globals';
import { testDomain } from '../../rpc/testing/domain.ts';
import { NotifiedDomains } from './domains.ts';

describe('NotifiedDomains', () => {
  it('answers with the last domain reported once it stopped, and only then', () => {
    const d = new NotifiedDomains();
    d.note('u', testDomain('Running', 'Booted'));
    expect(d.stopped('u')).toBeUndefined();
    d.note('u', testDomain('Shutoff', 'Shutdown'));
    expect(d.stopped('u')?.Status).toMatchObject({ Status: 'Shutoff', Reason: 'Shutdown' });
    d.note('u', testDomain('Running', 'Booted'));
    expect(d.stopped('u')).toBeUndefined();
  });

  it('ignores what is not a domain, and forgets', () => {
    const d = new NotifiedDomains();
    d.note('u', testDomain('Crashed', 'Panicked'));
    d.note('u', undefined);
    d.note('u', { kind: 'Pod' });
    expect(d.stopped('u')?.Status.Status).toBe('Crashed');
    d.forget('u');
    expect(d.stopped('u')).toBeUndefined();
  });
});
