import { describe, expect, it } from '@jest/globals';
import { KvError } from '../../kernel/errors/errors.ts';
import { el, escapeAttr, escapeText, renderXml, textEl } from './xml.ts';

describe('escaping', () => {
  it.each([
    ['plain', 'plain'],
    ['a & b', 'a &amp; b'],
    ['<tag>', '&lt;tag&gt;'],
    ['say "hi"', 'say "hi"'],
    ["it's", "it's"],
  ])('text %p → %p', (input, out) => {
    expect(escapeText(input)).toBe(out);
  });

  it.each([
    ['say "hi"', 'say &quot;hi&quot;'],
    ['a&b<c>', 'a&amp;b&lt;c&gt;'],
    ['tab\there', 'tab&#9;here'],
    ['two\nlines\r', 'two&#10;lines&#13;'],
  ])('attribute %p → %p', (input, out) => {
    expect(escapeAttr(input)).toBe(out);
  });

  it.each(['\u0000', 'bell\u0007', 'esc\u001b[0m', '\uFFFF'])(
    'refuses %p, which XML 1.0 cannot carry',
    (v) => {
      expect(() => escapeText(v)).toThrow(KvError);
      expect(() => renderXml(textEl('serial', v))).toThrow(/cannot carry/);
    },
  );
});

describe('renderXml', () => {
  it('keeps attribute order, drops undefined attributes and absent children, indents by two', () => {
    const tree = el(
      'disk',
      { device: 'disk', skipped: undefined, type: 'file', count: 2 },
      el('source', { file: '/a b/"x".img' }),
      undefined,
      false,
      [textEl('serial', 'S<1>'), undefined],
      el('readonly'),
    );
    expect(renderXml(tree)).toBe(
      [
        '<disk device="disk" type="file" count="2">',
        '  <source file="/a b/&quot;x&quot;.img"/>',
        '  <serial>S&lt;1&gt;</serial>',
        '  <readonly/>',
        '</disk>',
        '',
      ].join('\n'),
    );
  });

  it('writes empty text as an open and close pair, not a self-closed element', () => {
    expect(renderXml(textEl('entry', '', { name: 'sku' }))).toBe('<entry name="sku"></entry>\n');
  });

  it.each(['1abc', 'a b', 'x"y', ''])('refuses the element name %p', (name) => {
    expect(() => renderXml(el(name))).toThrow(/not an XML name/);
  });

  it('refuses a bad attribute name', () => {
    expect(() => renderXml(el('a', { 'on click': 'x' }))).toThrow(/not an XML name/);
  });
});
