import { describe, expect, it } from '@jest/globals';
import type { ComponentPatch, InstallConfig } from '../config/install-config.ts';
import { byPatchLength, customizationsJson, customizerHash } from './identifier.ts';

type Customizations = Pick<InstallConfig, 'patches' | 'flags'>;

const none: Customizations = {
  patches: [],
  flags: { 'virt-api': {}, 'virt-controller': {}, 'virt-handler': {} },
};

const merge = (patch: string, resourceName = 'virt-api'): ComponentPatch => ({
  resourceType: 'Deployment',
  resourceName,
  type: 'merge',
  patch,
});

// Each hash and JSON text is what KubeVirt's getHash (Go's encoding/json and crypto/sha1) makes of the same input.
describe('customizerHash', () => {
  it.each<[string, Customizations, string, string]>([
    ['no customizations', none, '{}', 'bf21a9e8fbc5a3846fb05b4fa0859e0917b2202f'],
    [
      'flags only: empty maps left out, keys sorted',
      {
        ...none,
        flags: { 'virt-api': { v: '4', b: 'x' }, 'virt-controller': {}, 'virt-handler': { z: '' } },
      },
      '{"flags":{"api":{"b":"x","v":"4"},"handler":{"z":""}}}',
      '58fe8313b347a67f3349c9b8e03bf7a0784425fd',
    ],
    [
      'patches shortest first by UTF-8 bytes, HTML characters escaped as Go does',
      {
        patches: [
          merge('{"a":"ééé"}'),
          merge('{"a":"abcd"}'),
          {
            resourceType: 'Service',
            resourceName: '*',
            type: 'strategic',
            patch: '{"metadata":{"labels":{"a":"<b>&c"}}}',
          },
        ],
        flags: {
          'virt-api': { v: '4' },
          'virt-controller': { 'leader-elect': 'true', a: '' },
          'virt-handler': {},
        },
      },
      '{"patches":[' +
        '{"resourceName":"virt-api","resourceType":"Deployment","patch":"{\\"a\\":\\"abcd\\"}","type":"merge"},' +
        '{"resourceName":"virt-api","resourceType":"Deployment","patch":"{\\"a\\":\\"ééé\\"}","type":"merge"},' +
        '{"resourceName":"*","resourceType":"Service","patch":"{\\"metadata\\":{\\"labels\\":{\\"a\\":\\"\\u003cb\\u003e\\u0026c\\"}}}","type":"strategic"}' +
        '],"flags":{"api":{"v":"4"},"controller":{"a":"","leader-elect":"true"}}}',
      'b798b77bee89fbe46e29f3004142e70ce6b626c5',
    ],
  ])('%s', (_name, c, json, hash) => {
    expect(customizationsJson(c)).toBe(json);
    expect(customizerHash(c)).toBe(hash);
  });

  it('depends on the order of patches of one length only', () => {
    const a = merge('{"a":1}', 'virt-api');
    const b = merge('{"b":1}', 'virt-api');
    expect(customizerHash({ ...none, patches: [a, b] })).not.toBe(
      customizerHash({ ...none, patches: [b, a] }),
    );
    expect(customizerHash({ ...none, patches: [merge('{"a":12}'), b] })).toBe(
      customizerHash({ ...none, patches: [b, merge('{"a":12}')] }),
    );
  });
});

describe('byPatchLength', () => {
  it('sorts by the patch text in UTF-8 bytes and keeps the order of equal lengths', () => {
    const items = ['{"x":"ééé"}', '{"x":"abcd"}', '{"y":"abcd"}', '{}'].map((text, i) => ({
      patch: merge(text),
      i,
    }));
    expect(byPatchLength(items).map(({ i }) => i)).toEqual([3, 1, 2, 0]);
  });
});
