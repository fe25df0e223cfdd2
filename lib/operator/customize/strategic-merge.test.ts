import { describe, expect, it } from '@jest/globals';
import { goldens } from '../../kernel/testing/golden.ts';
import type { JsonObject } from './json.ts';
import { applyStrategicMerge } from './strategic-merge.ts';

interface Case {
  name: string;
  doc: JsonObject & { kind: string };
  patch: JsonObject;
  expected: JsonObject;
}

// One case per merge key, strategy and directive; each expected result is what apimachinery's
// strategicpatch.StrategicMergePatch returns for the same input.
const APPLIED = JSON.parse(goldens(import.meta.url).read('strategic-merge.cases.json')) as Case[];

const REFUSED: [JsonObject & { kind: string }, JsonObject, string][] = [
  [
    { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'a' }] } } } },
    { spec: { template: { spec: { containers: [{ image: 'x' }] } } } },
    'spec.template.spec.containers: an item has no merge key "name"',
  ],
  [
    { kind: 'Deployment', spec: { template: { spec: {} } } },
    { spec: { $patch: 'merge' } },
    'spec: unknown $patch "merge" in an object',
  ],
  [
    { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'a' }] } } } },
    { spec: { template: { spec: { containers: [{ $patch: 'merge' }] } } } },
    'spec.template.spec.containers: unknown $patch "merge" in a list',
  ],
  [
    { kind: 'Deployment', metadata: { finalizers: ['a'] } },
    { metadata: { finalizers: [1] } },
    'metadata.finalizers: the items of the list are not all of one type',
  ],
  [
    { kind: 'Deployment', spec: { strategy: { type: 'x' } } },
    { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } },
    'spec.strategy: rollingUpdate is set but not in $retainKeys',
  ],
  [
    { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'a' }] } } } },
    {
      spec: {
        template: { spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [{ name: 'b' }] } },
      },
    },
    "spec.template.spec.containers: the patch's order differs from $setElementOrder/containers",
  ],
];

describe('applyStrategicMerge', () => {
  it.each(APPLIED.map((c): [string, Case] => [c.name, c]))('%s', (_name, { doc, patch, expected }) => {
    const before = structuredClone(doc);
    expect(applyStrategicMerge(doc, patch, doc.kind)).toEqual(expected);
    expect(doc).toEqual(before);
  });

  it.each(REFUSED)('refuses %j + %j: %s', (doc, patch, message) => {
    expect(() => applyStrategicMerge(doc, patch, doc.kind)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_CUSTOMIZE', message }),
    );
  });

  it.each([
    [[], 'a strategic merge patch is a JSON object'],
    ['x', 'a strategic merge patch is a JSON object'],
  ])('refuses the patch %j', (patch, message) => {
    expect(() => applyStrategicMerge({}, patch, 'Deployment')).toThrow(expect.objectContaining({ message }));
  });

  it('refuses a kind it has no merge keys for, as apimachinery refuses unstructured objects', () => {
    expect(() => applyStrategicMerge({}, {}, 'VirtualMachine')).toThrow(
      expect.objectContaining({ message: 'strategic merge patches of a VirtualMachine are not supported' }),
    );
  });
});
