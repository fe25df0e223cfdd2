/**
 * A small XML reader for what libvirt sends back (capabilities, domain capabilities): elements, attributes,
 * text, with the XML declaration, comments, processing instructions and CDATA handled. No DTDs, no namespaces
 * beyond keeping prefixed names as they are. Pure.
 */
import { KvError } from '../kernel/errors/errors.ts';

export interface XmlNode {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly XmlNode[];
  /** The element's own text, entities decoded and trimmed. */
  readonly text: string;
}

interface Building {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

const ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return ENTITIES[ref] ?? whole;
  });
}

const ATTR = /([^\s=/>]+)\s*=\s*("([^"]*)"|'([^']*)')/g;

function parseTag(body: string): Building {
  const name = /^[^\s/>]+/.exec(body)?.[0] ?? '';
  const attrs: Record<string, string> = {};
  for (const m of body.slice(name.length).matchAll(ATTR)) {
    const key = m[1];
    if (key !== undefined) attrs[key] = decode(m[3] ?? m[4] ?? '');
  }
  return { name, attrs, children: [], text: '' };
}

function fail(msg: string, at: number): never {
  throw new KvError('KV_ERR_DECODE', `XML: ${msg} at offset ${at}`);
}

/** Index just past the construct that starts at `i` (`<?`, `<!--`, `<![CDATA[` or `<!DOCTYPE`). */
function skipSpecial(xml: string, index: number, top: Building | undefined): number {
  const [open, close] = xml.startsWith('<?', index)
    ? ['<?', '?>']
    : xml.startsWith('<!--', index)
      ? ['<!--', '-->']
      : xml.startsWith('<![CDATA[', index)
        ? ['<![CDATA[', ']]>']
        : ['<!', '>'];
  const end = xml.indexOf(close, index + open.length);
  if (end < 0) fail(`unterminated ${open}`, index);
  if (open === '<![CDATA[' && top !== undefined) top.text += xml.slice(index + open.length, end);
  return end + close.length;
}

function finish(b: Building): XmlNode {
  return { name: b.name, attrs: b.attrs, children: b.children, text: b.text.trim() };
}

class Reader {
  private readonly stack: Building[] = [];
  private root: XmlNode | undefined;

  constructor(private readonly xml: string) {}

  private add(node: XmlNode, at: number): void {
    const parent = this.stack.at(-1);
    if (parent !== undefined) parent.children.push(node);
    else if (this.root === undefined) this.root = node;
    else fail('a second root element', at);
  }

  /** Handles the tag whose `<` is at lt; returns the index after it. */
  private tag(lt: number): number {
    const gt = this.xml.indexOf('>', lt);
    if (gt < 0) fail('unterminated tag', lt);
    const body = this.xml.slice(lt + 1, gt);
    if (body.startsWith('/')) {
      const name = body.slice(1).trim();
      const open = this.stack.pop();
      if (open?.name !== name) fail(`unexpected </${name}>`, lt);
      this.add(finish(open), lt);
    } else if (body.endsWith('/')) {
      this.add(finish(parseTag(body.slice(0, -1))), lt);
    } else {
      this.stack.push(parseTag(body));
    }
    return gt + 1;
  }

  read(): XmlNode {
    const xml = this.xml;
    let i = 0;
    while (i < xml.length) {
      const lt = xml.indexOf('<', i);
      const top = this.stack.at(-1);
      if (top !== undefined) top.text += decode(xml.slice(i, lt < 0 ? xml.length : lt));
      if (lt < 0) break;
      const special = xml.startsWith('<?', lt) || xml.startsWith('<!', lt);
      i = special ? skipSpecial(xml, lt, top) : this.tag(lt);
    }
    if (this.stack.length > 0) fail(`<${this.stack.at(-1)?.name ?? ''}> is not closed`, xml.length);
    if (this.root === undefined) fail('no root element', 0);
    return this.root;
  }
}

/** Parses a document and returns its root element; throws KV_ERR_DECODE on malformed input. */
export function parseXml(xml: string): XmlNode {
  return new Reader(xml).read();
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
