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

describe('NotifiedDomains cap', () => {
  it('holds at most cap domains, the one noted longest ago going first', () => {
    const d = new NotifiedDomains(3);
    for (const uid of ['a', 'b', 'c', 'd']) d.note(uid, testDomain('Shutoff', 'Shutdown'));
    expect(d.uids()).toEqual(['b', 'c', 'd']);
    // A new note of a held uid makes it the newest.
    d.note('b', testDomain('Shutoff', 'Shutdown'));
    d.note('e', testDomain('Shutoff', 'Shutdown'));
    expect(d.uids()).toEqual(['d', 'b', 'e']);
    expect(d.stopped('c')).toBeUndefined();
    expect(d.stopped('e')?.Status.Status).toBe('Shutoff');
  });
});
