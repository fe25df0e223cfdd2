/**
 * JSON Patch (RFC 6902) over JSON Pointers (RFC 6901), as KubeVirt applies a `json` customizeComponents patch
 * (patches.go applyPatch, through evanphx/json-patch). Two leniencies of that library are kept because
 * Deckhouse's patches rely on the first: `replace` of an absent object member adds it, and a negative array
 * index counts from the end (-1 is the last item; for `add`, the end). Works on a copy; a failure names the
 * operation's index, op and path, and why.
 */
import { deepEqual } from '../../kernel/controller/merge-patch.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import { customizeError, isObject, type JsonObject } from './json.ts';

interface Pointer {
  readonly text: string;
  /** Reference tokens as written (still escaped), for messages. */
  readonly raw: readonly string[];
  readonly tokens: readonly string[];
}

interface Slot {
  readonly parent: JsonObject | unknown[];
  readonly key: string;
}

const MISSING = Symbol('missing');

function pointer(text: string): Pointer {
  if (text === '') return { text, raw: [], tokens: [] };
  if (!text.startsWith('/')) throw customizeError(`${JSON.stringify(text)} is not a JSON pointer`);
  const raw = text.slice(1).split('/');
  return { text, raw, tokens: raw.map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~')) };
}

const prefix = (p: Pointer, n: number): string => (n === 0 ? '' : `/${p.raw.slice(0, n).join('/')}`);
const missing = (path: string): KvError => customizeError(`path ${path} does not exist`);

/** An array index, negative ones counted from the end; undefined when out of range (end allowed for add). */
function arrayIndex(token: string, length: number, forAdd: boolean): number | undefined {
  if (!/^-?\d+$/.test(token)) return undefined;
  const size = forAdd ? length + 1 : length;
  const i = Number(token) < 0 ? Number(token) + size : Number(token);
  return i >= 0 && i < size ? i : undefined;
}

function child(container: unknown, token: string): unknown {
  if (Array.isArray(container)) {
    const i = arrayIndex(token, container.length, false);
    return i === undefined ? MISSING : container[i];
  }
  return isObject(container) && Object.hasOwn(container, token) ? container[token] : MISSING;
}

function slotOf(root: unknown, p: Pointer): Slot {
  let at = root;
  for (let n = 0; n < p.tokens.length - 1; n++) {
    at = child(at, p.tokens[n] ?? '');
    if (at === MISSING) throw missing(prefix(p, n + 1));
  }
  if (!Array.isArray(at) && !isObject(at)) throw missing(p.text);
  return { parent: at, key: p.tokens[p.tokens.length - 1] ?? '' };
}

function get(root: unknown, p: Pointer): unknown {
  let at = root;
  for (const [n, token] of p.tokens.entries()) {
    at = child(at, token);
    if (at === MISSING) throw missing(prefix(p, n + 1));
  }
  return at;
}

interface Doc {
  root: unknown;
}

function add(doc: Doc, p: Pointer, value: unknown): void {
  if (p.tokens.length === 0) {
    doc.root = value;
    return;
  }
  const { parent, key } = slotOf(doc.root, p);
  if (!Array.isArray(parent)) {
    parent[key] = value;
    return;
  }
  const i = key === '-' ? parent.length : arrayIndex(key, parent.length, true);
  if (i === undefined) {
    const of = prefix(p, p.tokens.length - 1);
    throw customizeError(`index ${key} is out of range of ${of} (length ${String(parent.length)})`);
  }
  parent.splice(i, 0, value);
}

function remove(doc: Doc, p: Pointer): unknown {
  if (p.tokens.length === 0) throw customizeError('the whole document cannot be removed');
  const { parent, key } = slotOf(doc.root, p);
  if (Array.isArray(parent)) {
    const i = arrayIndex(key, parent.length, false);
    if (i === undefined) throw missing(p.text);
    return parent.splice(i, 1)[0];
  }
  if (!Object.hasOwn(parent, key)) throw missing(p.text);
  const value = parent[key];
  Reflect.deleteProperty(parent, key);
  return value;
}

function replace(doc: Doc, p: Pointer, value: unknown): void {
  if (p.tokens.length === 0) {
    doc.root = value;
    return;
  }
  const { parent, key } = slotOf(doc.root, p);
  if (!Array.isArray(parent)) {
    parent[key] = value;
    return;
  }
  const i = arrayIndex(key, parent.length, false);
  if (i === undefined) throw missing(p.text);
  parent[i] = value;
}

function move(doc: Doc, from: Pointer, to: Pointer): void {
  if (from.text === to.text) return;
  if (to.text.startsWith(`${from.text}/`)) throw customizeError(`${from.text} cannot move into itself`);
  add(doc, to, remove(doc, from));
}

function field(op: JsonObject, name: 'path' | 'from'): Pointer {
  const text = op[name];
  if (typeof text !== 'string') throw customizeError(`no "${name}"`);
  return pointer(text);
}

function value(op: JsonObject): unknown {
  if (!Object.hasOwn(op, 'value')) throw customizeError('no "value"');
  return structuredClone(op['value']);
}

function applyOne(doc: Doc, op: JsonObject): void {
  switch (op['op']) {
    case 'add':
      add(doc, field(op, 'path'), value(op));
      return;
    case 'remove':
      remove(doc, field(op, 'path'));
      return;
    case 'replace':
      replace(doc, field(op, 'path'), value(op));
      return;
    case 'move':
      move(doc, field(op, 'from'), field(op, 'path'));
      return;
    case 'copy':
      add(doc, field(op, 'path'), structuredClone(get(doc.root, field(op, 'from'))));
      return;
    case 'test':
      if (!deepEqual(get(doc.root, field(op, 'path')), value(op))) throw customizeError('test failed');
      return;
    default:
      throw customizeError(`unknown op ${JSON.stringify(op['op'])}`);
  }
}

/** The document with the operations applied in order; doc is not touched. */
export function applyJsonPatch(doc: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw customizeError('a JSON patch is an array of operations');
  const out: Doc = { root: structuredClone(doc) };
  for (const [i, op] of operations.entries()) {
    if (!isObject(op)) throw customizeError(`operation ${String(i)} is not an object`);
    try {
      applyOne(out, op);
    } catch (err) {
      if (!(err instanceof KvError)) throw err;
      const what = `${String(op['op'])} ${String(op['path'])}`;
      throw customizeError(`operation ${String(i)} (${what}): ${err.message}`, err);
    }
  }
  return out.root;
}
