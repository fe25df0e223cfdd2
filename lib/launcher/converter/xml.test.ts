import { describe, expect, it } from '@jest/globals';
import { KvError } from '../../kernel/errors/errors.ts';
import { domainXml } from './domain-xml.ts';
import { emptyDomain, type DomainSpec } from './domain-spec.ts';
import { el, escapeAttr, escapeText, renderXml, textEl, type XmlElement } from './xml.ts';

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

describe('numbers', () => {
  it.each([0, 1, 4096, Number.MAX_SAFE_INTEGER, -1])('writes the whole number %p', (n) => {
    expect(renderXml(textEl('memory', n, { unit: 'b' }))).toBe(`<memory unit="b">${String(n)}</memory>\n`);
    expect(renderXml(el('vcpu', { id: n }))).toBe(`<vcpu id="${String(n)}"/>\n`);
  });

  it.each([NaN, Infinity, -Infinity, 1.5, 2 ** 60])(
    'refuses the number %p as text and as an attribute',
    (n) => {
      const text = (): XmlElement => textEl('memory', n, { unit: 'b' });
      const attr = (): XmlElement => el('vcpu', { id: n });
      for (const build of [text, attr]) {
        expect(build).toThrow(KvError);
        expect(build).toThrow(expect.objectContaining({ code: 'KV_ERR_INTERNAL' }));
        expect(build).toThrow(/is not a whole number/);
      }
    },
  );

  it.each<[string, unknown]>([
    ['an object', {}],
    ['an array', [1]],
    ['a boolean', true],
    ['null', null],
  ])('refuses %s as an attribute value instead of writing its String()', (_, value) => {
    expect(() => el('boot', { order: value as number })).toThrow(
      expect.objectContaining({ code: 'KV_ERR_INTERNAL' }),
    );
  });

  it.each<[string, (d: DomainSpec) => void, RegExp]>([
    ['NaN memory', (d) => (d.memory = NaN), /<memory>: NaN is not a whole number/],
    ['infinite vCPUs', (d) => (d.vcpu = Infinity), /<vcpu>: Infinity is not a whole number/],
    ['a fractional socket count', (d) => (d.cpu.topology.sockets = 1.5), /<topology sockets>: 1.5/],
    [
      'a fractional boot order',
      (d) => {
        d.devices.interfaces.push({
          type: 'ethernet',
          model: 'virtio',
          alias: { name: 'default', userDefined: true },
          bootOrder: 0.5,
        });
      },
      /<boot order>: 0.5 is not a whole number/,
    ],
  ])('domainXml refuses %s, never writes it', (_, patch, message) => {
    const d = emptyDomain();
    patch(d);
    expect(() => domainXml(d)).toThrow(message);
  });
});
