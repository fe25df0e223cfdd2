import { describe, expect, it } from '@jest/globals';
import { isDns1123Label, isDns1123Subdomain, isValidPortName } from './dns.ts';

const LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('apimachinery name checks', () => {
  it.each<[string, string[]]>([
    ['my-vm', []],
    ['a', []],
    ['My-VM', [LABEL_ERR]],
    ['-a', [LABEL_ERR]],
    ['a.b', ['must not contain dots']],
    ['a'.repeat(64), ['must be no more than 63 characters']],
    ['A'.repeat(64), ['must be no more than 63 characters', LABEL_ERR]],
  ])('label %s', (value, errs) => {
    expect(isDns1123Label(value)).toEqual(errs);
  });

  it.each<[string, string[]]>([
    ['example.com', []],
    ['Example.com', [SUBDOMAIN_ERR]],
    ['a..b', [SUBDOMAIN_ERR]],
    [`${'a'.repeat(250)}.bcd`, ['must be no more than 253 characters']],
  ])('subdomain %s', (value, errs) => {
    expect(isDns1123Subdomain(value)).toEqual(errs);
  });

  it.each<[string, boolean]>([
    ['http', true],
    ['http-alt', true],
    ['80', false],
    ['Http', false],
    ['a--b', false],
    ['-a', false],
    ['a-', false],
    ['abcdefghijklmnop', false],
  ])('port name %s', (name, ok) => {
    expect(isValidPortName(name)).toBe(ok);
  });
});
