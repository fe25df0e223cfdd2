/**
 * A value that breaks its type on purpose, for a test whose point is how the code under test refuses it (the
 * API server's schema, a decoder, a check of a missing part). The one place a test says "this is not a T".
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the type the value breaks
export function malformed<T>(value: unknown): T {
  return value as T;
}
