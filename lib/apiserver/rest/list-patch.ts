/**
 * The JSON patch a subresource writes for lists it changes whole (kubevirt rest/volumes.go: patch.WithTest, then
 * patch.WithReplace, or patch.WithAdd when the list is empty; tag v1.6.2): a `test` of each list as it is (null
 * when absent), then each list set to its new value, `replace` when it had items, else `add`. A list changed
 * since it was read fails the `test`, and the whole patch with it. Pure.
 */
import type { JsonPatchOp } from './patch-plan.ts';

export interface ListChange {
  readonly path: string;
  /** The list as read (undefined when absent). */
  readonly old: readonly unknown[] | undefined;
  readonly next: readonly unknown[];
}

export function listsPatch(changes: readonly ListChange[]): JsonPatchOp[] {
  const tests = changes.map((c): JsonPatchOp => ({ op: 'test', path: c.path, value: c.old ?? null }));
  const sets = changes.map((c): JsonPatchOp => ({
    op: c.old !== undefined && c.old.length > 0 ? 'replace' : 'add',
    path: c.path,
    value: c.next,
  }));
  return [...tests, ...sets];
}
