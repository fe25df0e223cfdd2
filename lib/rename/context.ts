/** What every rewriter gets: the indexed rules and the direction. */
import type { RuleIndex } from './rules/rule-index.ts';
import type { Direction } from './rules/types.ts';

export interface RewriteContext {
  readonly rules: RuleIndex;
  readonly dir: Direction;
}

export function renameContext(rules: RuleIndex): RewriteContext {
  return { rules, dir: 'rename' };
}

export function restoreContext(rules: RuleIndex): RewriteContext {
  return { rules, dir: 'restore' };
}
