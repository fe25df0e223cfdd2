/**
 * apimachinery's name checks (pkg/util/validation): each answers the list of problems, in its words, empty when
 * the value is valid.
 */

const LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN_FMT = `${LABEL_FMT}(\\.${LABEL_FMT})*`;
const LABEL = new RegExp(`^${LABEL_FMT}$`);
const SUBDOMAIN = new RegExp(`^${SUBDOMAIN_FMT}$`);
const LABEL_MAX = 63;
const SUBDOMAIN_MAX = 253;

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

const maxLenError = (n: number): string => `must be no more than ${n} characters`;

function regexError(msg: string, fmt: string, examples: readonly string[]): string {
  const shown = examples.map((e) => `'${e}', `).join(' or ');
  return `${msg} (e.g. ${shown}regex used for validation is '${fmt}')`;
}

/** Go's len(): the length in UTF-8 bytes. */
const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

export function isDns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_MAX) errs.push(maxLenError(LABEL_MAX));
  if (!LABEL.test(value)) {
    errs.push(
      SUBDOMAIN.test(value)
        ? 'must not contain dots'
        : regexError(LABEL_MSG, LABEL_FMT, ['my-name', '123-abc']),
    );
  }
  return errs;
}

export function isDns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > SUBDOMAIN_MAX) errs.push(maxLenError(SUBDOMAIN_MAX));
  if (!SUBDOMAIN.test(value)) errs.push(regexError(SUBDOMAIN_MSG, SUBDOMAIN_FMT, ['example.com']));
  return errs;
}

/** IsValidPortName: at most 15 of [-a-z0-9], at least one letter, no "--", no hyphen at either end. */
export function isValidPortName(port: string): boolean {
  return (
    byteLength(port) <= 15 &&
    /^[-a-z0-9]+$/.test(port) &&
    /[a-z]/.test(port) &&
    !port.includes('--') &&
    !port.startsWith('-') &&
    !port.endsWith('-')
  );
}
