/**
 * The text fast paths against the whole-document rewriters they stand in for: for generated objects of every
 * kind, on both sides, rewriting the JSON text gives what rewriting the parsed object gives.
 */
import { describe, expect, it } from '@jest/globals';
import { isRecord, isSkip, SKIP } from '../../rename/json.ts';
import { rewriteObject } from '../../rename/object.ts';
import { ObjectGenerator, type Side } from '../../rename/testing/generators.ts';
import { KIND_GENERATORS, type KindGenerator } from '../../rename/testing/kind-generators.ts';
import { Prng } from '../../rename/testing/prng.ts';
import { KUBEVIRT, kvRename, kvRestore } from '../../rename/testing/synthetic-rules.ts';
import { rewriteWatchEvent } from '../../rename/watch.ts';
import { restoreEventText, rewriteObjectText } from './text-rewrite.ts';
import { internalVmi, originalVmi } from '../../rename/testing/objects.ts';

const GENERATORS: [string, KindGenerator][] = [
  ...Object.entries(KIND_GENERATORS).filter(([kind]) => !kind.endsWith('List')),
  ...[...KUBEVIRT.resourceByOriginal.values()].map((entry): [string, KindGenerator] => [
    entry.resource.kind,
    (g) => g.customResource(g.resourceRule(entry)),
  ]),
];
const CASES = 300;

function generate(seed: number, side: Side): Record<string, unknown> {
  const rng = new Prng(seed);
  const [, gen] = GENERATORS[seed % GENERATORS.length] ?? ['none', (): Record<string, unknown> => ({})];
  return gen(new ObjectGenerator(rng, KUBEVIRT, side), { rng, rules: KUBEVIRT, side });
}

const restoreObject = (o: unknown): unknown => (isRecord(o) ? rewriteObject(o, kvRestore) : o);
const parsed = (out: string | typeof SKIP): unknown => (isSkip(out) ? out : JSON.parse(out));

describe('rewriteObjectText', () => {
  it.each<Side>(['server', 'client'])(
    'restores generated %s-side objects of every kind like rewriteObject',
    (side) => {
      for (let seed = 1; seed <= CASES; seed++) {
        const doc = generate(seed, side);
        const want = restoreObject(structuredClone(doc));
        for (const text of [JSON.stringify(doc), JSON.stringify(doc, null, 1)])
          expect([seed, parsed(rewriteObjectText(text, kvRestore, restoreObject))]).toEqual([seed, want]);
      }
    },
  );

  it('renames like rewriteObject too', () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const doc = generate(seed, 'client');
      const rename = (o: unknown): unknown => (isRecord(o) ? rewriteObject(o, kvRename) : o);
      expect([seed, parsed(rewriteObjectText(JSON.stringify(doc), kvRename, rename))]).toEqual([
        seed,
        rename(structuredClone(doc)),
      ]);
    }
  });

  it('writes spec and status of a custom resource back as the bytes that came', () => {
    const text = JSON.stringify(
      internalVmi({ name: 'a', extra: { status: { phase: 'Running', 'weird "key"': [1, { x: '}' }] } } }),
    ).replace('"domain":{', '"domain":  {');
    const out = rewriteObjectText(text, kvRestore, restoreObject) as string;
    expect(out).toContain('"spec":{"domain":  {"devices":{}}}');
    expect(JSON.parse(out)).toEqual(
      originalVmi({ name: 'a', extra: { status: { phase: 'Running', 'weird "key"': [1, { x: '}' }] } } }),
    );
  });

  it('leaves managedFields[].fieldsV1 as it came while restoring the rest of metadata', () => {
    const fieldsV1 =
      '{"f:metadata": {"f:labels":{"f:kubevirt.internal.virtualization.deckhouse.io/vm":{}}},"f:spec":{".":{}}}';
    const vmi = internalVmi({ name: 'a' }) as { metadata: Record<string, unknown> };
    vmi.metadata['labels'] = {
      fieldsV1: 'label named fieldsV1',
      'kubevirt.internal.virtualization.deckhouse.io/vm': 'a',
    };
    vmi.metadata['annotations'] = { note: 'a "fieldsV1": {} inside a string' };
    vmi.metadata['managedFields'] = [
      {
        manager: 'm',
        apiVersion: 'internal.virtualization.deckhouse.io/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: 'X',
      },
      {
        manager: 'n',
        apiVersion: 'internal.virtualization.deckhouse.io/v1',
        fieldsV1: 'Y',
        subresource: 'status',
      },
    ];
    const text = JSON.stringify(vmi).replace('"X"', fieldsV1).replace('"Y"', '{}');
    const out = rewriteObjectText(text, kvRestore, restoreObject) as string;
    expect(out).toContain(`"fieldsV1":${fieldsV1}`);
    expect(JSON.parse(out)).toEqual(restoreObject(JSON.parse(text)));
    expect(JSON.parse(out)).toMatchObject({
      metadata: {
        labels: { fieldsV1: 'label named fieldsV1', 'kubevirt.io/vm': 'a' },
        managedFields: [{ apiVersion: 'kubevirt.io/v1' }, { apiVersion: 'kubevirt.io/v1', fieldsV1: {} }],
      },
    });
  });

  it('gives back the very same string when nothing changes, and SKIP for an excluded object', () => {
    const cm = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"b"}}';
    expect(rewriteObjectText(cm, kvRestore, restoreObject)).toBe(cm);
    expect(rewriteObjectText(JSON.stringify(originalVmi({ name: 'real' })), kvRestore, restoreObject)).toBe(
      SKIP,
    );
  });

  it.each([
    '{"kind":',
    '{"apiVersion":"internal.virtualization.deckhouse.io/v1","kind":"InternalVirtualizationVirtualMachineInstance","metadata":{"a":tru}}',
    'nope',
  ])('throws on invalid JSON %s', (text) => {
    expect(() => rewriteObjectText(text, kvRestore, restoreObject)).toThrow();
  });
});

describe('restoreEventText', () => {
  it.each(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'])(
    'restores generated %s events like rewriteWatchEvent',
    (type) => {
      for (let seed = 1; seed <= 100; seed++) {
        const object = generate(seed, 'server');
        const want = rewriteWatchEvent(structuredClone({ type, object }), kvRestore);
        expect([seed, parsed(restoreEventText(JSON.stringify({ type, object }), kvRestore))]).toEqual([
          seed,
          want,
        ]);
      }
    },
  );

  it("reads events that are not in the API server's usual member order", () => {
    const ev = { object: internalVmi({ name: 'a' }), type: 'ADDED' };
    expect(JSON.parse(restoreEventText(JSON.stringify(ev), kvRestore) as string)).toEqual({
      type: 'ADDED',
      object: originalVmi({ name: 'a' }),
    });
  });

  it('throws on an unknown event type and on invalid JSON', () => {
    expect(() =>
      restoreEventText(JSON.stringify({ type: 'SURPRISE', object: internalVmi({ name: 'a' }) }), kvRestore),
    ).toThrow(/unknown watch event type/);
    expect(() => restoreEventText('{"type":"ADDED","object":{"kind":}', kvRestore)).toThrow();
  });
});
