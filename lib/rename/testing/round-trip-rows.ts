/** Table rows that check both directions: rename the original body, restore the renamed one. */
import { expect, it } from '@jest/globals';
import type { RewriteContext } from '../context.ts';
import { rewriteDocument } from '../document.ts';
import { deepFreeze, kvRename, kvRestore, synRename, synRestore } from './synthetic-rules.ts';

export const KV: [RewriteContext, RewriteContext] = [kvRename, kvRestore];
export const SYN: [RewriteContext, RewriteContext] = [synRename, synRestore];

export function roundTrip(
  name: string,
  ctx: [RewriteContext, RewriteContext],
  original: object,
  renamed: object,
): void {
  it(`${name}: rename`, () => {
    expect(rewriteDocument(deepFreeze(structuredClone(original)), ctx[0])).toEqual(renamed);
  });
  it(`${name}: restore`, () => {
    expect(rewriteDocument(deepFreeze(structuredClone(renamed)), ctx[1])).toEqual(original);
  });
}
