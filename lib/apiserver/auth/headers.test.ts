import { describe, expect, it } from '@jest/globals';
import { allValues, extraValues, firstValue, unescapeExtraKey, type HeaderValues } from './headers.ts';

describe('unescapeExtraKey', () => {
  it.each([
    ['scopes', 'scopes'],
    ['example.org%2fteam', 'example.org/team'],
    ['example.org%2Fteam', 'example.org/team'],
    ['a%20b', 'a b'],
    ['a+b', 'a+b'],
    ['%e2%9c%93', '\u2713'],
    ['100%', '100%'],
    ['bad%zzescape%2f', 'bad%zzescape%2f'],
    ['half%2', 'half%2'],
  ])('%s → %s', (encoded, key) => {
    expect(unescapeExtraKey(encoded)).toBe(key);
  });
});

describe('firstValue', () => {
  it.each<[string, HeaderValues, string | undefined]>([
    ['the first listed header that is set', { 'x-remote-user': ['alice'], 'x-user': ['bob'] }, 'alice'],
    ['the next header when the first is absent', { 'x-user': ['bob'] }, 'bob'],
    ['the next header when the first is empty', { 'x-remote-user': [''], 'x-user': ['bob'] }, 'bob'],
    ['only the first value of a header (Go Header.Get)', { 'x-remote-user': ['', 'mallory'] }, undefined],
    ['the first of several values', { 'x-remote-user': ['alice', 'bob'] }, 'alice'],
    ['nothing when none is set', {}, undefined],
  ])('takes %s', (_what, headers, want) => {
    expect(firstValue(headers, ['x-remote-user', 'x-user'])).toBe(want);
  });
});

describe('allValues', () => {
  it('collects every non-empty value of every listed header, in list order', () => {
    const headers = {
      'x-remote-group': ['system:authenticated', '', 'dev'],
      'x-group': ['ops'],
      other: ['no'],
    };
    expect(allValues(headers, ['x-remote-group', 'x-group'])).toEqual(['system:authenticated', 'dev', 'ops']);
  });
});

describe('extraValues', () => {
  it('keys by the rest of the name, decoded, with all values, across prefixes', () => {
    const headers: HeaderValues = {
      'x-remote-extra-scopes': ['view', 'edit'],
      'x-remote-extra-example.org%2fteam': ['a'],
      'x-extra-scopes': ['admin'],
      'x-remote-extra-': ['no key'],
      'x-remote-user': ['alice'],
    };
    expect(extraValues(headers, ['x-remote-extra-', 'x-extra-'])).toEqual({
      scopes: ['view', 'edit', 'admin'],
      'example.org/team': ['a'],
    });
  });

  it('makes __proto__ an ordinary key, not a prototype', () => {
    const extra = extraValues({ 'x-remote-extra-__proto__': ['x'] }, ['x-remote-extra-']);
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
    expect(Object.keys(extra)).toEqual(['__proto__']);
  });
});
