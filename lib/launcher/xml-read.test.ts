import { describe, expect, it } from '@jest/globals';
import { child, children, isWellFormedXml, parseXml } from './xml-read.ts';

describe('parseXml', () => {
  it('reads elements, attributes in both quote styles, text and self-closing tags', () => {
    const root = parseXml(`<?xml version="1.0"?>
      <!-- a comment -->
      <caps a="1" b='two'>
        <model usable='yes' vendor="AMD">EPYC</model>
        <model usable='no'>qemu64</model>
        <empty/>
      </caps>`);
    expect(root.name).toBe('caps');
    expect(root.attrs).toEqual({ a: '1', b: 'two' });
    expect(children(root, 'model').map((m) => [m.text, m.attrs['usable']])).toEqual([
      ['EPYC', 'yes'],
      ['qemu64', 'no'],
    ]);
    expect(child(root, 'empty')).toEqual({ name: 'empty', attrs: {}, children: [], text: '' });
    expect(child(root, 'missing/deeper')).toBeUndefined();
  });

  it('decodes entities and keeps CDATA as text', () => {
    const root = parseXml(`<r x="&lt;&amp;&quot;&#65;&#x42;"><t>a &gt; b</t><c><![CDATA[<raw> & ]]></c></r>`);
    expect(root.attrs['x']).toBe('<&"AB');
    expect(child(root, 't')?.text).toBe('a > b');
    expect(child(root, 'c')?.text).toBe('<raw> &');
  });

  it('reads a > inside an attribute value (a kernel command line, metadata)', () => {
    const root = parseXml(
      `<domain><os><cmdline value="console=ttyS0 x>y"/></os><metadata note='a > b'/><name>vm</name></domain>`,
    );
    expect(child(root, 'os/cmdline')?.attrs).toEqual({ value: 'console=ttyS0 x>y' });
    expect(child(root, 'metadata')?.attrs).toEqual({ note: 'a > b' });
    expect(child(root, 'name')?.text).toBe('vm');
    expect(root.children.map((c) => c.name)).toEqual(['os', 'metadata', 'name']);
  });

  it('walks a path of child names', () => {
    const root = parseXml('<a><b><c>deep</c></b></a>');
    expect(child(root, 'b/c')?.text).toBe('deep');
  });

  it('decodes character references in attribute values and text, astral characters included', () => {
    const root = parseXml('<r a="&#x1F600;&#10;x" b="&apos;"><t>&#233;t&#xE9; &#128512;</t></r>');
    expect(root.attrs).toEqual({ a: '\u{1F600}\nx', b: "'" });
    expect(child(root, 't')?.text).toBe('été \u{1F600}');
  });

  it('keeps namespace prefixes in names, as libvirt writes them', () => {
    const root = parseXml(
      `<domain xmlns:qemu="http://libvirt.org/schemas/domain/qemu/1.0"><qemu:commandline><qemu:arg value="-S"/></qemu:commandline></domain>`,
    );
    expect(child(root, 'qemu:commandline/qemu:arg')?.attrs).toEqual({ value: '-S' });
  });

  it.each([
    ['an unclosed element', '<a><b></a>'],
    ['a missing root', '<!-- nothing -->'],
    ['an unterminated tag', '<a'],
    ['two roots', '<a/><b/>'],
    ['an element left open', '<a>'],
  ])('rejects %s', (_what, xml) => {
    expect(() => parseXml(xml)).toThrow(expect.objectContaining({ code: 'KV_ERR_DECODE' }));
  });
});

describe('isWellFormedXml', () => {
  it.each([
    [
      'a declaration, a comment and a processing instruction around the root',
      '<?xml version="1.0"?>\n<!-- c --><?pi x?><a/>\n<!-- after -->\n',
    ],
    ['a ">" inside attribute values of both quote styles', `<a x="1 > 0" y='b>c'/>`],
    [
      'the predefined entities and character references',
      '<a x="&lt;&gt;&amp;&quot;&apos;&#9;&#x41;">&#65;</a>',
    ],
    ['CDATA holding markup characters', '<a><![CDATA[<b> & ]]></a>'],
    ['a declared namespace prefix', '<a xmlns:q="urn:q"><q:b q:c="1"/></a>'],
    ['the xml prefix, always declared', '<a xml:lang="en"/>'],
    ['tab, newline and carriage return', '<a x="\t">\r\n</a>'],
    ['an astral character', '<a>\u{1F600}</a>'],
  ])('accepts %s', (_what, xml) => {
    expect(isWellFormedXml(xml)).toBe(true);
  });

  it.each([
    ['a control character in text', '<a>\u0001</a>', 'a character XML does not allow (line 1, column 4)'],
    [
      'a control character in an attribute',
      '<a\nx="\u001b"/>',
      'a character XML does not allow (line 2, column 4)',
    ],
    ['a lone surrogate', '<a>\uD800</a>', 'a character XML does not allow'],
    ['U+FFFE', '<a>\uFFFE</a>', 'a character XML does not allow'],
    ['a character reference to NUL', '<a>&#0;</a>', 'character reference &#0; names a character'],
    ['a character reference past Unicode', '<a x="&#x110000;"/>', 'character reference &#x110000;'],
    ['an undeclared entity', '<a>&nbsp;</a>', 'undeclared entity &nbsp;'],
    ['a bare & in text', '<a>x & y</a>', "char '&' is not expected"],
    ['a bare & in an attribute', '<a x="x & y"/>', "a bare '&'"],
    ['a < in an attribute', '<a x="<"/>', "'<' in an attribute value"],
    ['a second root', '<a/><b/>', 'a second root element'],
    ['text after the root', '<a/>text', 'content after the root element (line 1, column 5)'],
    ['text after a comment after the root', '<a/><!-- c -->text', 'content after the root element'],
    ['text before the root', 'text<a/>', "char 't' is not expected"],
    ['no root', '<!-- nothing -->', 'Start tag expected'],
    ['a DOCTYPE', '<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>', 'a DOCTYPE'],
    [
      'an XML declaration not at the start',
      ' <?xml version="1.0"?><a/>',
      'XML declaration allowed only at the start',
    ],
    ['an XML declaration after the root', '<a/><?xml version="1.0"?>', 'content after the root element'],
    ['an undeclared element prefix', '<q:a/>', 'namespace prefix "q" of <q:a> is not declared'],
    ['an undeclared attribute prefix', '<a q:x="1"/>', 'namespace prefix "q" of <a>'],
    ['a prefix declared only on a sibling', '<r><a xmlns:q="u"/><q:b/></r>', 'namespace prefix "q" of <q:b>'],
    ['a name with two colons', '<a xmlns:q="u"><q:b:c/></a>', 'not a namespace-well-formed name'],
    ['a repeated attribute', '<a x="1" x="2"/>', "Attribute 'x' is repeated"],
    ['an unquoted attribute', '<a x=1/>', "Attribute 'x' is without value"],
    ['attributes without space between them', '<a x="1"y="2"/>', "Attribute 'y' has no space"],
    ['a mismatched closing tag', '<a><b></a>', "Expected closing tag 'b'"],
    ['a name the parser reserves', '<a><constructor/></a>', 'not accepted by the parser'],
    ['an empty document', '', 'Start tag expected'],
  ])('refuses %s, naming it', (_what, xml, message) => {
    expect(isWellFormedXml(xml)).toBe(false);
    expect(() => parseXml(xml)).toThrow(expect.objectContaining({ code: 'KV_ERR_DECODE' }));
    expect(() => parseXml(xml)).toThrow(message);
  });

  it('names no content of the document in its errors', () => {
    const secret = 'hunter2-s3cr3t';
    for (const xml of [
      `<a token="${secret} & more"/>`,
      `<a>${secret}\u0001</a>`,
      `<a x="${secret} <"/>`,
      `<a/>${secret}`,
      `<a><b>${secret}</a>`,
    ]) {
      expect(() => parseXml(xml)).toThrow(expect.objectContaining({ code: 'KV_ERR_DECODE' }));
      expect(() => parseXml(xml)).not.toThrow(secret);
    }
  });
});
