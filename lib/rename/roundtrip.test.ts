/**
 * Property tests: for generated objects of every kind, with random labels, annotations, finalizers and owner
 * references (original, preserved-original-, already renamed and neutral keys):
 * - client side: restore(rename(x)) deep-equals x;
 * - server side: rename(restore(y)) deep-equals y, and x = restore(y) goes round too.
 * A failure names its seed; rerun one with REWRITER_SEED=<seed>.
 */
import { describe, expect, it } from '@jest/globals';
import { rewriteDocument } from './document.ts';
import { ObjectGenerator, type Side } from './testing/generators.ts';
import { KIND_GENERATORS, type KindGenerator } from './testing/kind-generators.ts';
import { Prng } from './testing/prng.ts';
import { deepFreeze, KUBEVIRT, kvRename, kvRestore } from './testing/synthetic-rules.ts';

const CASES = 400;
const BASE_SEED = Number(process.env['REWRITER_SEED'] ?? '20261101');

/** Every generator: the core kinds, and each custom resource kind and list kind of the rule set. */
const GENERATORS: [string, KindGenerator][] = [
  ...Object.entries(KIND_GENERATORS),
  ...[...KUBEVIRT.resourceByOriginal.values()].flatMap((entry): [string, KindGenerator][] => [
    [entry.resource.kind, (g) => g.customResource(g.resourceRule(entry))],
    [entry.resource.listKind, (g) => g.customResourceList(g.resourceRule(entry))],
  ]),
];

function generate(seed: number, side: Side): { kind: string; doc: Record<string, unknown> } {
  const rng = new Prng(seed);
  const [kind, gen] = GENERATORS[seed % GENERATORS.length] ?? ['none', (): Record<string, unknown> => ({})];
  const g = new ObjectGenerator(rng, KUBEVIRT, side);
  return { kind, doc: deepFreeze(gen(g, { rng, rules: KUBEVIRT, side })) };
}

function check(seed: number, kind: string, fn: () => void): void {
  try {
    fn();
  } catch (err) {
    throw new Error(
      `round trip failed for ${kind} with seed ${seed} (rerun with REWRITER_SEED=${seed})\n${String(err)}`,
      { cause: err },
    );
  }
}

describe('round trip', () => {
  it(`covers every kind (${GENERATORS.length} generators for ${CASES} cases)`, () => {
    expect(GENERATORS.length).toBeLessThan(CASES / 4);
    expect(GENERATORS.map(([k]) => k)).toEqual(
      expect.arrayContaining(['VirtualMachine', 'MigrationPolicyList', 'Pod']),
    );
  });

  it(`client side: restore(rename(x)) equals x, seeds from ${BASE_SEED}`, () => {
    let changed = 0;
    for (let seed = BASE_SEED; seed < BASE_SEED + CASES; seed++) {
      const { kind, doc } = generate(seed, 'client');
      check(seed, kind, () => {
        const renamed = rewriteDocument(doc, kvRename);
        if (renamed !== doc) changed++;
        expect(rewriteDocument(renamed, kvRestore)).toEqual(doc);
      });
    }
    expect(changed).toBeGreaterThan(CASES / 2);
  });

  it(`server side: rename(restore(y)) equals y, seeds from ${BASE_SEED}`, () => {
    let changed = 0;
    for (let seed = BASE_SEED; seed < BASE_SEED + CASES; seed++) {
      const { kind, doc } = generate(seed, 'server');
      check(seed, kind, () => {
        const restored = rewriteDocument(doc, kvRestore);
        if (restored !== doc) changed++;
        expect(rewriteDocument(restored, kvRename)).toEqual(doc);
        expect(rewriteDocument(rewriteDocument(restored, kvRename), kvRestore)).toEqual(restored);
      });
    }
    expect(changed).toBeGreaterThan(CASES / 2);
  });
});
