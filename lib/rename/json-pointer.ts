/** JSON Pointer (RFC 6901) paths as used by JSON patch: '' is the whole document, `~1` is '/', `~0` is '~'. */

export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

export function formatPointer(segments: readonly string[]): string {
  return segments.map((s) => '/' + s.replaceAll('~', '~0').replaceAll('/', '~1')).join('');
}

/** An array index or the append position '-'. */
export function isIndexSegment(segment: string): boolean {
  return segment === '-' || /^(0|[1-9][0-9]*)$/.test(segment);
}
