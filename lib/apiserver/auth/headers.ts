/**
 * Reading an identity out of request headers the way Kubernetes' request-header authenticator does
 * (apiserver pkg/authentication/request/headerrequest): the first listed name header whose first value is
 * non-empty gives the user; every non-empty value of every group header is a group; each header that starts
 * with an extra prefix (case-insensitively) adds its values under the rest of its name, lower-cased and then
 * percent-decoded (a malformed escape keeps the key as it came).
 *
 * Headers come as Node's `req.headersDistinct`: lower-case names, one array entry per header line. Plain
 * `req.headers` will not do: Node joins repeated lines with ', ', which would turn two groups into one.
 */

export type HeaderValues = Readonly<Record<string, readonly string[] | undefined>>;

/** The first value of the first listed header whose first value is non-empty (Go's Header.Get per name). */
export function firstValue(headers: HeaderValues, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = headers[name]?.[0];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/** Every non-empty value of every listed header, in list order. */
export function allValues(headers: HeaderValues, names: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of names) {
    for (const value of headers[name] ?? []) if (value !== '') out.push(value);
  }
  return out;
}

const BAD_ESCAPE = /%(?![0-9a-fA-F]{2})/;
const ESCAPED_RUN = /(?:%[0-9a-fA-F]{2})+/g;

/**
 * Percent-decoding as Go's url.PathUnescape: '%XX' becomes that byte, '+' stays; a '%' not followed by two
 * hex digits makes the whole key come back unchanged. Decoded bytes are read as UTF-8.
 */
export function unescapeExtraKey(encoded: string): string {
  if (!encoded.includes('%') || BAD_ESCAPE.test(encoded)) return encoded;
  return encoded.replace(ESCAPED_RUN, (run) => Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'));
}

/**
 * Extra fields from the headers with one of the prefixes (lower-case, as config.ts keeps them). Keys are
 * own properties of the result even when named like `__proto__`. A header that is exactly a prefix carries
 * no key and is skipped.
 */
export function extraValues(
  headers: HeaderValues,
  prefixes: readonly string[],
): Record<string, readonly string[]> {
  const extra = new Map<string, string[]>();
  for (const prefix of prefixes) {
    for (const [name, values] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      if (values === undefined || lower.length <= prefix.length || !lower.startsWith(prefix)) continue;
      const key = unescapeExtraKey(lower.slice(prefix.length));
      extra.set(key, [...(extra.get(key) ?? []), ...values]);
    }
  }
  return Object.fromEntries(extra);
}
