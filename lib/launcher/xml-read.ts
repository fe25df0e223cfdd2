/**
 * Reading XML (what libvirt sends back: capabilities, domain capabilities, domain XML) into a small tree of
 * elements, attributes and text, on fast-xml-parser. Strict: a document is read only when it is well-formed
 * XML 1.0 with namespaces, as libvirt's libxml2 requires of what it is given, so the same check serves the
 * converter's outputs (isWellFormedXml). fast-xml-parser's validator checks tags, nesting, names, quoting and
 * repeated attributes; this module adds what it lets through: characters XML forbids, references other than
 * the five predefined entities and character references, `<` or a bare `&` in an attribute value, a second
 * root, text after the root, an XML declaration anywhere but at the start, a DOCTYPE (libvirt never sends
 * one; refusing it also leaves entity expansion out) and an undeclared namespace prefix. Not checked: what a
 * comment holds, `]]>` in text. Element and attribute names fast-xml-parser reserves (`__proto__`,
 * `constructor`, ...) are refused. Pure.
 */
import { XMLParser, XMLValidator, type EntityDecoderOptions } from 'fast-xml-parser';
import { KvError } from '../kernel/errors/errors.ts';

export interface XmlNode {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly XmlNode[];
  /** The element's own text (CDATA included), references decoded, trimmed. */
  readonly text: string;
}

const PREDEFINED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const REFERENCE = /&(?:#x([0-9a-fA-F]+)|#([0-9]+)|([A-Za-z_][\w.-]*));|&/g;
/** What may stand outside the root element: white space, comments, processing instructions (not `<?xml`). */
const MISC = /^(?:\s+|<!--[\s\S]*?-->|<\?(?![xX][mM][lL][\s?])[\s\S]*?\?>)*/;
const XML_DECL = /^<\?xml\s[^?]*\?>/;

const isXmlChar = (cp: number): boolean =>
  cp === 0x9 ||
  cp === 0xa ||
  cp === 0xd ||
  (cp >= 0x20 && cp <= 0xd7ff) ||
  (cp >= 0xe000 && cp <= 0xfffd) ||
  (cp >= 0x10000 && cp <= 0x10ffff);

/** Offset of the first character XML does not allow (a lone surrogate counts), or -1. */
function forbiddenCharAt(xml: string): number {
  let at = 0;
  for (const ch of xml) {
    if (!isXmlChar(ch.codePointAt(0) ?? 0)) return at;
    at += ch.length;
  }
  return -1;
}

function fail(what: string, xml?: string, at?: number): never {
  if (xml === undefined || at === undefined) throw new KvError('KV_ERR_DECODE', `XML: ${what}`);
  const before = xml.slice(0, at).split('\n');
  const where = `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
  throw new KvError('KV_ERR_DECODE', `XML: ${what} (${where})`);
}

/** Decodes one text or attribute value as fast-xml-parser hands it over (raw), noting what XML forbids. */
function decodeValue(raw: string, problems: string[]): string {
  // A raw '<' cannot reach here from text (it opens markup): it sat in an attribute value.
  if (raw.includes('<')) problems.push("'<' in an attribute value (write &lt;)");
  return raw.replace(REFERENCE, (whole, hex?: string, dec?: string, name?: string) => {
    if (hex !== undefined || dec !== undefined) {
      const cp = hex !== undefined ? parseInt(hex, 16) : parseInt(dec ?? '', 10);
      if (isXmlChar(cp)) return String.fromCodePoint(cp);
      problems.push(`character reference ${whole} names a character XML does not allow`);
      return whole;
    }
    if (name !== undefined) {
      const value = PREDEFINED[name];
      if (value === undefined) problems.push(`undeclared entity &${name};`);
      return value ?? whole;
    }
    problems.push("a bare '&' (write &amp;)");
    return whole;
  });
}

function entityDecoder(problems: string[]): EntityDecoderOptions {
  const nothing = (): void => undefined;
  return {
    setExternalEntities: nothing,
    addInputEntities: nothing,
    reset: nothing,
    setXmlVersion: nothing,
    decode: (text) => decodeValue(text, problems),
  };
}

type Entry = Record<string, unknown>;
const isRecord = (v: unknown): v is Entry => typeof v === 'object' && v !== null && !Array.isArray(v);
const entries = (v: unknown): Entry[] => (Array.isArray(v) ? v.filter(isRecord) : []);
const ATTRS = ':@';
/** Where fast-xml-parser keeps an element's start and end offsets (captureMetaData). */
const META = XMLParser.getMetaDataSymbol() as symbol;
const TEXT = '#text';

function attrsOf(entry: Entry): Record<string, string> {
  const raw = entry[ATTRS];
  const out: Record<string, string> = {};
  if (isRecord(raw)) for (const [k, v] of Object.entries(raw)) out[k] = String(v);
  return out;
}

const tagOf = (entry: Entry): string | undefined => Object.keys(entry).find((k) => k !== ATTRS);

/** An element of fast-xml-parser's ordered output as our node. */
function toNode(entry: Entry, name: string): XmlNode {
  const children: XmlNode[] = [];
  let text = '';
  for (const c of entries(entry[name])) {
    const tag = tagOf(c);
    if (tag === TEXT) text += String(c[TEXT]);
    else if (tag !== undefined) children.push(toNode(c, tag));
  }
  return { name, attrs: attrsOf(entry), children, text: text.trim() };
}

const prefixOf = (qname: string): string | undefined =>
  qname.includes(':') ? qname.slice(0, qname.indexOf(':')) : undefined;

/** Every prefixed element and attribute name uses a prefix declared on it or an ancestor. */
function checkNamespaces(node: XmlNode, declared: ReadonlySet<string>): void {
  const scope = new Set(declared);
  for (const attr of Object.keys(node.attrs)) if (attr.startsWith('xmlns:')) scope.add(attr.slice(6));
  const names = [node.name, ...Object.keys(node.attrs).filter((a) => prefixOf(a) !== 'xmlns')];
  for (const qname of names) {
    const prefix = prefixOf(qname);
    if (prefix === undefined) continue;
    if (qname.indexOf(':', prefix.length + 1) >= 0 || prefix === '' || qname.endsWith(':')) {
      fail(`${JSON.stringify(qname)} is not a namespace-well-formed name`);
    }
    if (!scope.has(prefix))
      fail(`namespace prefix ${JSON.stringify(prefix)} of <${node.name}> is not declared`);
  }
  for (const c of node.children) checkNamespaces(c, scope);
}

function validated(xml: string): void {
  // Deprecated in favour of the separate fast-xml-validator package; the pinned fast-xml-parser still ships it.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const result = XMLValidator.validate(xml, { allowBooleanAttributes: false });
  if (result !== true) fail(`${result.err.msg} (line ${result.err.line}, column ${result.err.col})`);
  const bad = forbiddenCharAt(xml);
  if (bad >= 0) fail('a character XML does not allow', xml, bad);
  const declEnd = XML_DECL.exec(xml)?.[0].length ?? 0;
  const rootAt = declEnd + (MISC.exec(xml.slice(declEnd))?.[0].length ?? 0);
  if (xml.startsWith('<!DOCTYPE', rootAt)) fail('a DOCTYPE (not accepted here)', xml, rootAt);
}

function parsed(xml: string): { root: Entry; name: string; end: number } {
  const problems: string[] = [];
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    processEntities: true,
    entityDecoder: entityDecoder(problems),
    captureMetaData: true,
  });
  let top: Entry[];
  try {
    // White space between the prolog's comments and processing instructions comes as text entries.
    top = entries(parser.parse(xml)).filter((e) => tagOf(e) !== TEXT);
  } catch (err) {
    fail(
      `not accepted by the parser: ${(err instanceof Error ? err.message : String(err)).split(' Context:')[0] ?? ''}`,
    );
  }
  const first = problems[0];
  if (first !== undefined) fail(first);
  const root = top[0];
  const name = root === undefined ? undefined : tagOf(root);
  if (root === undefined || name === undefined) fail('no root element');
  if (top.length > 1) fail('a second root element');
  const meta = (root as Record<symbol, unknown>)[META];
  const end = isRecord(meta) && typeof meta['endIndex'] === 'number' ? meta['endIndex'] : xml.length;
  return { root, name, end };
}

/** Parses a well-formed document and returns its root element; throws KV_ERR_DECODE naming what is wrong. */
export function parseXml(xml: string): XmlNode {
  validated(xml);
  const { root, name, end } = parsed(xml);
  const rest = xml.slice(end);
  if ((MISC.exec(rest)?.[0].length ?? 0) !== rest.length) fail('content after the root element', xml, end);
  const node = toNode(root, name);
  checkNamespaces(node, new Set(['xml']));
  return node;
}

/** Whether text is a well-formed XML document by the rules parseXml holds it to. */
export function isWellFormedXml(text: string): boolean {
  try {
    parseXml(text);
    return true;
  } catch (err) {
    if (err instanceof KvError && err.code === 'KV_ERR_DECODE') return false;
    throw err;
  }
}

/** The first child element named `name` (a `/`-separated path walks down), or undefined. */
export function child(node: XmlNode | undefined, path: string): XmlNode | undefined {
  let cur = node;
  for (const name of path.split('/')) cur = cur?.children.find((c) => c.name === name);
  return cur;
}

/** Every child element named `name`. */
export function children(node: XmlNode | undefined, name: string): XmlNode[] {
  return node === undefined ? [] : node.children.filter((c) => c.name === name);
}
