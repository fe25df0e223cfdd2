import { describe, expect, it } from '@jest/globals';
import { addInfoSource, hasInfoSource, removeInfoSource, type InfoSource } from './info-source.ts';

describe('infoSource', () => {
  it.each<[string | undefined, InfoSource, string]>([
    [undefined, 'multus-status', 'multus-status'],
    ['', 'multus-status', 'multus-status'],
    ['domain', 'multus-status', 'domain, multus-status'],
    ['domain, guest-agent', 'multus-status', 'domain, guest-agent, multus-status'],
    ['domain, guest-agent, multus-status', 'multus-status', 'domain, guest-agent, multus-status'],
    ['multus-status', 'domain', 'multus-status, domain'],
  ])('add to %p %s: %p', (have, source, want) => {
    expect(addInfoSource(have, source)).toBe(want);
  });

  it.each<[string | undefined, InfoSource, string | undefined]>([
    [undefined, 'multus-status', undefined],
    ['multus-status', 'multus-status', undefined],
    ['domain, guest-agent, multus-status', 'multus-status', 'domain, guest-agent'],
    ['domain, multus-status, guest-agent', 'multus-status', 'domain, guest-agent'],
    ['guest-agent', 'multus-status', 'guest-agent'],
  ])('remove from %p %s: %p', (have, source, want) => {
    expect(removeInfoSource(have, source)).toBe(want);
  });

  it.each<[string | undefined, InfoSource, boolean]>([
    [undefined, 'domain', false],
    ['domain, guest-agent', 'guest-agent', true],
    ['domain, guest-agent', 'multus-status', false],
    ['domain,guest-agent', 'guest-agent', false],
    ['multus-status-x', 'multus-status', false],
  ])('%p has %s: %p', (have, source, want) => {
    expect(hasInfoSource(have, source)).toBe(want);
  });
});
