/**
 * The top-level members of a JSON object text, found without parsing it: each member's key and where its raw
 * value starts and ends. Lets the proxy parse only the members a rewrite needs and write the others back as
 * they came. Member values are not validated here (a member that is parsed is validated by JSON.parse).
 * Pure: no IO.
 */
const QUOTE = 34;
const BACKSLASH = 92;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const COMMA = 44;
const COLON = 58;

export interface ObjectText {
  readonly text: string;
  readonly keys: readonly string[];
  /** Start and end (exclusive) offsets of each member's raw value, two numbers per member. */
  readonly spans: readonly number[];
  /**
   * Where the part not scanned begins: the closing brace when every member was scanned, else the comma after
   * the last member scanned (a scan stops once it has seen every wanted member).
   */
  readonly rest: number;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function skipSpace(t: string, from: number): number {
  let i = from;
  while (i < t.length && isSpace(t.charCodeAt(i))) i++;
  return i;
}

/** `at` is an opening quote: the offset after the closing one, or -1. */
function stringEnd(t: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const q = t.indexOf('"', from);
    if (q === -1) return -1;
    let slashes = 0;
    for (let k = q - 1; k > at && t.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

function nestedEnd(t: string, at: number): number {
  let depth = 0;
  for (let i = at; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(t, i);
      if (end === -1) return -1;
      i = end - 1;
    } else if (c === LBRACE || c === LBRACKET) depth++;
    else if ((c === RBRACE || c === RBRACKET) && --depth === 0) return i + 1;
  }
  return -1;
}

function valueEnd(t: string, at: number): number {
  const c = t.charCodeAt(at);
  if (c === QUOTE) return stringEnd(t, at);
  if (c === LBRACE || c === LBRACKET) return nestedEnd(t, at);
  let i = at;
  while (i < t.length) {
    const d = t.charCodeAt(i);
    if (d === COMMA || d === RBRACE || d === RBRACKET || isSpace(d)) break;
    i++;
  }
  return i === at ? -1 : i;
}

function keyAt(t: string, at: number, end: number): string {
  const raw = t.slice(at + 1, end - 1);
  return raw.includes('\\') ? (JSON.parse(t.slice(at, end)) as string) : raw;
}

interface Member {
  readonly key: string;
  readonly start: number;
  readonly end: number;
  /** Offset of what follows the value: a comma or the closing brace (anything else is an error). */
  readonly next: number;
}

/** The member whose key starts at `at`; undefined when the text is broken there. */
function memberAt(text: string, at: number): Member | undefined {
  if (text.charCodeAt(at) !== QUOTE) return undefined;
  const keyEnd = stringEnd(text, at);
  if (keyEnd === -1) return undefined;
  let i = skipSpace(text, keyEnd);
  if (text.charCodeAt(i) !== COLON) return undefined;
  i = skipSpace(text, i + 1);
  const end = valueEnd(text, i);
  if (end === -1) return undefined;
  return { key: keyAt(text, at, keyEnd), start: i, end, next: skipSpace(text, end) };
}

/**
 * The members of the object `text` is; undefined when it is not one JSON object (as far as the scan sees).
 * With `wanted`, the scan stops once it has seen all of those members (the rest is neither scanned nor checked).
 */
export function scanObject(text: string, wanted?: readonly string[]): ObjectText | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== LBRACE) return undefined;
  const keys: string[] = [];
  const spans: number[] = [];
  const stopAt = new Set(wanted);
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === RBRACE) return closed(text, i, keys, spans);
  for (;;) {
    const m = memberAt(text, i);
    if (m === undefined) return undefined;
    stopAt.delete(m.key);
    keys.push(m.key);
    spans.push(m.start, m.end);
    const c = text.charCodeAt(m.next);
    if (c === RBRACE) return closed(text, m.next, keys, spans);
    if (c !== COMMA) return undefined;
    if (wanted !== undefined && stopAt.size === 0) return { text, keys, spans, rest: m.next };
    i = skipSpace(text, m.next + 1);
  }
}

function closed(text: string, brace: number, keys: string[], spans: number[]): ObjectText | undefined {
  return skipSpace(text, brace + 1) === text.length ? { text, keys, spans, rest: brace } : undefined;
}

/** True when the quote at `at` is escaped (inside a string), i.e. preceded by an odd run of backslashes. */
export function escapedQuote(t: string, at: number): boolean {
  let slashes = 0;
  for (let k = at - 1; k >= 0 && t.charCodeAt(k) === BACKSLASH; k--) slashes++;
  return slashes % 2 === 1;
}

/** Start and end of the value that starts at `from` (after optional whitespace); undefined if broken. */
export function valueSpan(t: string, from: number): [number, number] | undefined {
  const start = skipSpace(t, from);
  const end = valueEnd(t, start);
  return end === -1 ? undefined : [start, end];
}

/** The raw text of a member's value (the last one of that name), or undefined. */
export function rawMember(o: ObjectText, key: string): string | undefined {
  const at = o.keys.lastIndexOf(key);
  return at === -1 ? undefined : o.text.slice(o.spans[2 * at], o.spans[2 * at + 1]);
}

/**
 * The object again, with the members in `changed` encoded from their new values (undefined: left out) and all
 * others as they came, in their order; keys only in `changed` go after the members scanned.
 */
export function withMembers(objectText: ObjectText, changed: ReadonlyMap<string, unknown>): string {
  const parts: string[] = [];
  objectText.keys.forEach((key, i) => {
    if (!changed.has(key)) {
      parts.push(`${JSON.stringify(key)}:${objectText.text.slice(objectText.spans[2 * i], objectText.spans[2 * i + 1])}`);
      return;
    }
    const value = changed.get(key);
    if (value !== undefined) parts.push(`${JSON.stringify(key)}:${JSON.stringify(value)}`);
  });
  for (const [key, value] of changed)
    if (!objectText.keys.includes(key) && value !== undefined)
      parts.push(`${JSON.stringify(key)}:${JSON.stringify(value)}`);
  // The tail starts with the comma before the next member not scanned, or with the closing brace.
  const tail = objectText.text.slice(objectText.rest);
  return `{${parts.join(',')}${parts.length === 0 && tail.startsWith(',') ? tail.slice(1) : tail}`;
}
