/**
 * Fuzz test of `virt launcher convert`'s path (schema check, KubeVirt defaults, converter, XML writer) with VMIs
 * generated from the schema: each valid one (realistic, or wild: any field the schema has) gives well-formed
 * domain XML with no NaN, undefined, Infinity or [object Object] in it, or is refused naming a field; each one
 * with a single broken field is refused, naming that field. Never another exception, never a stack trace, one
 * line. The seed is printed; FUZZ_SEED=<n> repeats a run.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { KvError } from '../../kernel/errors/errors.ts';
import { ARCHES, type Arch } from './context.ts';
import { arbitraryVmi, brokenVmi, convertGenerated, generatedDomains, wildVmi } from './testing/generated.ts';
import { parseWellFormedXml } from './testing/well-formed.ts';

const VALID_RUNS = 300;
const BROKEN_RUNS = 300;
const WILD_RUNS = 200;
const SEED = seed(process.env['FUZZ_SEED']);

function seed(given: string | undefined): number {
  if (given === undefined) return Date.now() % 2 ** 31;
  const n = Number(given);
  if (!Number.isSafeInteger(n)) throw new Error(`FUZZ_SEED must be an integer, got ${JSON.stringify(given)}`);
  return n;
}

/** A message that starts with a field path: `spec.domain.devices.disks[0].name: …`. */
const FIELD_PATH = /^[A-Za-z][A-Za-z0-9_-]*((\.[A-Za-z0-9_-]+)|(\[[^\]\s]+\]))*: \S/;
const POISON = /NaN|undefined|Infinity|\[object Object\]/;

type Outcome = { readonly xml: string } | { readonly refused: KvError };

function outcome(vmi: unknown, emulation: boolean, arch: Arch): Outcome {
  try {
    return { xml: convertGenerated(vmi, { emulation, arch }) };
  } catch (err) {
    // Anything but a KvError is a crash: it fails the property with its own stack.
    if (!(err instanceof KvError)) throw err;
    return { refused: err };
  }
}

/** A refusal as `virt launcher convert` prints it: one line, starting with a field path. */
function expectRefusal(err: KvError): void {
  expect(err.code).toBe('KV_ERR_INVALID');
  expect(err.message).toMatch(FIELD_PATH);
  expect(err.message).not.toContain('\n');
}

function expectFieldRefusal(err: KvError, field: string): void {
  expectRefusal(err);
  expect(err.message.startsWith(`${field}: `)).toBe(true);
}

const counts = { converted: 0, refused: 0 };
let wildConverted = 0;

beforeAll(() => {
  console.log(
    `converter fuzz: FUZZ_SEED=${String(SEED)} ` +
      `(${String(VALID_RUNS)} valid, ${String(WILD_RUNS)} wild, ${String(BROKEN_RUNS)} broken)`,
  );
});

describe('the converter fuzzed with VMIs from the schema', () => {
  it('gives well-formed XML without poison for a valid VMI, or refuses it naming a field', () => {
    const input = fc.tuple(arbitraryVmi(), fc.boolean(), fc.constantFrom(...ARCHES));
    fc.assert(
      fc.property(input, ([vmi, emulation, arch]) => {
        const out = outcome(vmi, emulation, arch);
        if ('refused' in out) {
          counts.refused++;
          expectRefusal(out.refused);
          return;
        }
        counts.converted++;
        expect(parseWellFormedXml(out.xml).name).toBe('domain');
        expect(out.xml).not.toMatch(POISON);
      }),
      { seed: SEED, numRuns: VALID_RUNS },
    );
    console.log(`converter fuzz: ${String(counts.converted)} converted, ${String(counts.refused)} refused`);
    // Generated VMIs are realistic: on amd64 (a third of the runs) every one converts.
    expect(counts.converted).toBeGreaterThanOrEqual(VALID_RUNS / 3);
  });

  it('gives clean XML for any VMI the schema takes, with every field it has, or refuses it naming a field', () => {
    fc.assert(
      fc.property(wildVmi(), fc.boolean(), fc.constantFrom(...ARCHES), (vmi, emulation, arch) => {
        const out = outcome(vmi, emulation, arch);
        if ('refused' in out) {
          expectRefusal(out.refused);
          return;
        }
        wildConverted++;
        expect(parseWellFormedXml(out.xml).name).toBe('domain');
        expect(out.xml).not.toMatch(POISON);
      }),
      { seed: SEED, numRuns: WILD_RUNS },
    );
    console.log(`converter fuzz: ${String(wildConverted)} wild ones converted`);
  });

  it('refuses a VMI with one broken field, naming that field', () => {
    fc.assert(
      fc.property(brokenVmi(), fc.boolean(), (broken, emulation) => {
        const out = outcome(broken.value, emulation, 'amd64');
        if (!('refused' in out)) throw new Error(`accepted ${broken.path} (${broken.how})`);
        expectFieldRefusal(out.refused, broken.path);
      }),
      { seed: SEED, numRuns: BROKEN_RUNS },
    );
  });
});

describe('generatedDomains', () => {
  it('converts every generated VMI for amd64, the same ones for the same seed', () => {
    const a = generatedDomains(SEED, 50);
    expect(a).toHaveLength(50);
    for (const d of a) expect(parseWellFormedXml(d.xml).name).toBe('domain');
    expect(generatedDomains(SEED, 50)).toEqual(a);
    expect(generatedDomains(SEED + 1, 5).map((d) => d.xml)).not.toEqual(a.slice(0, 5).map((d) => d.xml));
  });
});
