/**
 * The rows of the RBAC table tests: for each KubeVirt rule (as one line, testing/rules.ts fmtRule) what ours
 * grants for it, the same, renamed to the internal names, narrowed or nothing, and the rules ours adds; and
 * the check that a generated role holds exactly what its rows say.
 */
import { expect, it } from '@jest/globals';
import type { PolicyRule } from '../policy.ts';
import { fmtRule } from './rules.ts';

export interface Row {
  /** KubeVirt's rule; undefined for a rule ours adds. */
  readonly kubevirt: string | undefined;
  /** What ours grants for it; undefined when it is left out. */
  readonly ours: string | undefined;
  readonly why?: string;
}

/** The internal group and the resources' prefix (the rename rules give them; the tables spell them out). */
export const INT = 'internal.virtualization.deckhouse.io';
export const P = 'internalvirtualization';

export const same = (kubevirt: string): Row => ({ kubevirt, ours: kubevirt });
export const to = (kubevirt: string, ours: string): Row => ({ kubevirt, ours });
export const narrowed = (kubevirt: string, ours: string, why: string): Row => ({ kubevirt, ours, why });
export const omitted = (kubevirt: string, why: string): Row => ({ kubevirt, ours: undefined, why });
export const added = (ours: string, why: string): Row => ({ kubevirt: undefined, ours, why });

const title = (r: Row): string =>
  `${r.kubevirt ?? '(added)'} → ${r.ours ?? '(left out)'}${r.why === undefined ? '' : ` (${r.why})`}`;

const distinctSorted = (rules: readonly string[]): string[] => [...new Set(rules)].sort();

/**
 * Tests for one generated role: every KubeVirt rule has exactly one row and every row names one of KubeVirt's
 * rules or is added, and the generated rules are exactly the rows' `ours` (and those of `beyond`: rules the role
 * holds for another reason), each once, in no particular order.
 */
export function expectTable(
  rows: readonly Row[],
  kubevirt: readonly PolicyRule[],
  generated: () => readonly PolicyRule[],
  beyond: () => readonly PolicyRule[] = () => [],
): void {
  it.each(rows.map((r) => [title(r), r] as const))('%s', (_title, r) => {
    if (r.kubevirt !== undefined) expect(kubevirt.map(fmtRule)).toContain(r.kubevirt);
    if (r.ours !== undefined) expect(generated().map(fmtRule)).toContain(r.ours);
  });
  it('has one row per KubeVirt rule', () => {
    expect(rows.flatMap((r) => r.kubevirt ?? []).sort()).toEqual(kubevirt.map(fmtRule).sort());
  });
  it('grants exactly the rows, each once', () => {
    const text = generated().map(fmtRule);
    expect(text.sort()).toEqual(
      distinctSorted([...rows.flatMap((r) => r.ours ?? []), ...beyond().map(fmtRule)]),
    );
  });
}
