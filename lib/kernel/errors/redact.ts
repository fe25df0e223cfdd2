/**
 * The last line of defence for text that leaves the process (log lines, Status messages): credentials that
 * a library or a server put into an error message are replaced by `[redacted]`. Errors are written not to
 * carry them in the first place; this catches what slips through (client-go's transport/round_trippers.go
 * masks the Authorization header the same way before logging it).
 */

const REDACTED = '[redacted]';

/** [pattern, replacement]; the replacement keeps the label so the line still says what was there. */
const RULES: readonly (readonly [RegExp, string])[] = [
  // Authorization: Bearer x / Basic x, as a header line, a query-ish pair or a JSON field.
  [/(authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|negotiate)\s+)?)[^\s"',;}]+/gi, `$1${REDACTED}`],
  [/\b(bearer\s+)[\w\-.~+/]+=*/gi, `$1${REDACTED}`],
  // A JWT (service-account and OIDC tokens): header.payload.signature, base64url.
  [/\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*/g, REDACTED],
  // PEM blocks: private keys, certificates; a block cut short runs to the end of the text.
  [/-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(?:-----END [A-Z0-9 ]+-----|$)/g, REDACTED],
  // user:password@ in a URL.
  [/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@"']+:[^/\s@"']*@/gi, `$1${REDACTED}@`],
];

export function redactSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  return out;
}
