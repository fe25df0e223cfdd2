/**
 * A small XML writer of our own: elements with attributes in the order they were given, text children escaped,
 * two-space indentation, `<x/>` for empty elements. Deterministic: the same tree always gives the same bytes.
 * Every number libvirt's domain XML takes from us is a whole one (sizes, counts, ids, indexes, orders): a number
 * that is not a safe integer (NaN, Infinity, 1.5, 2^60), or a value that is neither a string nor a number, is
 * refused with an internal error instead of being written.
 */
import { KvError } from '../../kernel/errors/errors.ts';

export type AttrValue = string | number | undefined;

export interface XmlElement {
  readonly name: string;
  readonly attrs: readonly (readonly [string, string])[];
  /** Either text or child elements (libvirt's domain XML never mixes them). */
  readonly text?: string;
  readonly children: readonly XmlElement[];
}

/** Child slots may be absent or lists; both are flattened away. */
export type XmlChild = XmlElement | undefined | false | readonly (XmlElement | undefined | false)[];

/** The text of a value; `where` names it for the error (`<memory>`, `<vcpu id>`). */
function valueText(value: unknown, where: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return String(value);
    throw new KvError('KV_ERR_INTERNAL', `domain XML ${where}: ${String(value)} is not a whole number`);
  }
  const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
  throw new KvError('KV_ERR_INTERNAL', `domain XML ${where}: ${kind} is not a string or a number`);
}

function attrList(element: string, attrs: Readonly<Record<string, AttrValue>>): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined) out.push([key, valueText(value, `<${element} ${key}>`)]);
  }
  return out;
}

function flatten(children: readonly XmlChild[]): XmlElement[] {
  const out: XmlElement[] = [];
  for (const child of children) {
    if (Array.isArray(child)) out.push(...flatten(child as readonly XmlChild[]));
    else if (child !== undefined && child !== false) out.push(child as XmlElement);
  }
  return out;
}

/** An element; attributes whose value is undefined are left out, the rest keep their order. */
export function el(
  name: string,
  attrs: Readonly<Record<string, AttrValue>> = {},
  ...children: readonly XmlChild[]
): XmlElement {
  return { name, attrs: attrList(name, attrs), children: flatten(children) };
}

/** An element holding text (the text is escaped when written). */
export function textEl(
  name: string,
  text: string | number,
  attrs: Readonly<Record<string, AttrValue>> = {},
): XmlElement {
  return { name, attrs: attrList(name, attrs), text: valueText(text, `<${name}>`), children: [] };
}

// XML 1.0 cannot carry these at all, not even as character references.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

function checked(value: string): string {
  if (FORBIDDEN.test(value)) {
    throw new KvError('KV_ERR_INVALID', `value ${JSON.stringify(value)} has a character XML cannot carry`);
  }
  return value;
}

export function escapeText(value: string): string {
  return checked(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Attribute values also escape quotes and keep tabs and line breaks (a parser would fold them to spaces). */
export function escapeAttr(value: string): string {
  return escapeText(value)
    .replace(/"/g, '&quot;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

const NAME = /^[A-Za-z_][\w.:-]*$/;

function checkedName(name: string): string {
  if (!NAME.test(name)) throw new KvError('KV_ERR_INVALID', `${JSON.stringify(name)} is not an XML name`);
  return name;
}

function writeElement(node: XmlElement, indent: string, out: string[]): void {
  const attrs = node.attrs.map(([k, v]) => ` ${checkedName(k)}="${escapeAttr(v)}"`).join('');
  const open = `${indent}<${checkedName(node.name)}${attrs}`;
  if (node.text !== undefined) {
    out.push(`${open}>${escapeText(node.text)}</${node.name}>`);
  } else if (node.children.length === 0) {
    out.push(`${open}/>`);
  } else {
    out.push(`${open}>`);
    for (const child of node.children) writeElement(child, `${indent}  `, out);
    out.push(`${indent}</${node.name}>`);
  }
}

/** The document text, one element per line, ending with a newline. */
export function renderXml(root: XmlElement): string {
  const out: string[] = [];
  writeElement(root, '', out);
  return `${out.join('\n')}\n`;
}
