import { describe, expect, it } from '@jest/globals';
import { child, children, parseXml } from './xml-read.ts';

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

  it('walks a path of child names', () => {
    const root = parseXml('<a><b><c>deep</c></b></a>');
    expect(child(root, 'b/c')?.text).toBe('deep');
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
