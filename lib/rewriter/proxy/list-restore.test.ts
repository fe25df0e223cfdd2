import { describe, expect, it } from '@jest/globals';
import { rewriteDocument } from '../../rename/document.ts';
import { kvRestore } from '../../rename/testing/synthetic-rules.ts';
import { ListRestorer } from './list-restore.ts';
import { internalVmi, internalVmiList, originalVmi, originalVmiList, type Obj } from '../../rename/testing/objects.ts';

interface Run {
  out: string;
  invalid: number;
  hidden: boolean;
  /** Number of write calls (the restorer streams: many). */
  writes: number;
}

function restore(text: string, chunk = 0): Run {
  const pieces: Buffer[] = [];
  let invalid = 0;
  const r = new ListRestorer({
    ctx: kvRestore,
    write: (d) => pieces.push(Buffer.from(d)),
    onInvalid: () => invalid++,
  });
  const bytes = Buffer.from(text, 'utf8');
  const step = chunk === 0 ? bytes.length || 1 : chunk;
  for (let i = 0; i < bytes.length; i += step) r.push(bytes.subarray(i, i + step));
  r.end();
  return { out: Buffer.concat(pieces).toString('utf8'), invalid, hidden: r.hidden, writes: pieces.length };
}

const vmis = (n: number): Obj[] => Array.from({ length: n }, (_, i) => internalVmi({ name: `vm${i}` }));

describe('ListRestorer', () => {
  it.each([0, 1, 13, 4096])(
    'restores a list item by item (chunks of %i bytes) like the whole-list rewrite',
    (chunk) => {
      const list = internalVmiList(vmis(5));
      const run = restore(JSON.stringify(list), chunk);
      expect(JSON.parse(run.out)).toEqual(
        originalVmiList(Array.from({ length: 5 }, (_, i) => originalVmi({ name: `vm${i}` }))),
      );
      expect(JSON.parse(run.out)).toEqual(rewriteDocument(list, kvRestore));
      expect(run.invalid).toBe(0);
    },
  );

  it.each([0, 1, 29])(
    'streams a custom resource list whose members come sorted (items before kind), chunks of %i bytes',
    (chunk) => {
      const items = vmis(3);
      const text = `{"apiVersion":"internal.virtualization.deckhouse.io/v1","items":${JSON.stringify(items)},"kind":"InternalVirtualizationVirtualMachineInstanceList","metadata":{"resourceVersion":"7"}}`;
      const pieces: string[] = [];
      const r = new ListRestorer({
        ctx: kvRestore,
        write: (d) => pieces.push(d.toString()),
        onInvalid: () => undefined,
      });
      const bytes = Buffer.from(text);
      const step = chunk === 0 ? bytes.length : chunk;
      let beforeKind = '';
      for (let i = 0; i < bytes.length; i += step) {
        r.push(bytes.subarray(i, i + step));
        if (i + step <= text.indexOf('],"kind"')) beforeKind = pieces.join('');
      }
      r.end();
      expect(JSON.parse(pieces.join(''))).toEqual(
        originalVmiList(
          Array.from({ length: 3 }, (_, i) => originalVmi({ name: `vm${i}` })),
          '7',
        ),
      );
      // Items went out before the envelope arrived (not buffered to the end).
      if (chunk !== 0) expect(beforeKind).toContain('"kubevirt.io/nodeName"');
    },
  );

  it('writes the envelope, then each item on its own', () => {
    expect(restore(JSON.stringify(internalVmiList(vmis(3)))).writes).toBeGreaterThanOrEqual(5);
  });

  it('restores core lists whose items carry no kind (the list kind says Pod)', () => {
    const list = {
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: {},
      items: [
        {
          metadata: {
            name: 'p',
            labels: { 'kubevirt.internal.virtualization.deckhouse.io': 'virt-launcher' },
          },
        },
      ],
    };
    expect(JSON.parse(restore(JSON.stringify(list), 3).out)).toEqual({
      ...list,
      items: [{ metadata: { name: 'p', labels: { 'kubevirt.io': 'virt-launcher' } } }],
    });
  });

  it('leaves out items of an original kind (a real kubevirt.io object next to ours)', () => {
    const list = {
      ...internalVmiList([internalVmi({ name: 'a' })]),
      items: [internalVmi({ name: 'a' }), originalVmi({ name: 'real' })],
    };
    const out = JSON.parse(restore(JSON.stringify(list), 7).out) as { items: Obj[] };
    expect(out.items).toEqual([originalVmi({ name: 'a' })]);
  });

  it('writes unchanged items as the bytes that came in', () => {
    const item = '{"metadata":{"name":"cm"},  "data":{"k":"v"}}';
    const text = `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":[${item},${item}]}`;
    expect(restore(text, 5).out).toBe(
      `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":[${item},${item}]}`,
    );
  });

  it('keeps members after the items', () => {
    const text = '{"kind":"PodList","apiVersion":"v1","items":[],"metadata":{"resourceVersion":"3"}}';
    expect(JSON.parse(restore(text, 2).out)).toEqual(JSON.parse(text));
  });

  it('restores an object that is not a list whole', () => {
    const vmi = internalVmi({ name: 'one', extra: { items: [1, 2] } });
    const run = restore(JSON.stringify(vmi), 9);
    expect(JSON.parse(run.out)).toEqual(originalVmi({ name: 'one', extra: { items: [1, 2] } }));
  });

  it('restores a Status (no items) whole', () => {
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired' };
    expect(JSON.parse(restore(JSON.stringify(status), 4).out)).toEqual(status);
  });

  it('hides a list of an original kind (nothing is written)', () => {
    const run = restore(JSON.stringify(originalVmiList([originalVmi({ name: 'x' })])), 8);
    expect(run).toMatchObject({ hidden: true, out: '' });
  });

  it('passes an item that is not valid JSON through as it came, and counts it', () => {
    const good = JSON.stringify(internalVmi({ name: 'a' }));
    const text = `{"kind":"InternalVirtualizationVirtualMachineInstanceList","apiVersion":"internal.virtualization.deckhouse.io/v1","items":[{"bad": tru},${good}]}`;
    const run = restore(text, 11);
    expect(run.invalid).toBe(1);
    expect(run.out).toContain('{"bad": tru},');
    expect(run.out).toContain('"kubevirt.io/nodeName"');
  });

  it.each([
    ['not JSON at all', 'this is protobuf \u0000\u0001'],
    ['a broken envelope', '{"kind":"PodList","metadata":{"a":tru},"items":[]}'],
    ['a truncated envelope', '{"kind":"PodList","meta'],
    ['a broken structure before the items', '{"kind":"PodList" "items":[]}'],
  ])('passes %s through unchanged and counts it', (_name, text) => {
    for (const chunk of [0, 3]) {
      const run = restore(text, chunk);
      expect(run.out).toBe(text);
      expect(run.invalid).toBe(1);
    }
  });

  it('passes the rest through once the structure breaks after items were written', () => {
    const good = JSON.stringify(internalVmi({ name: 'a' }));
    const text = `{"kind":"InternalVirtualizationVirtualMachineInstanceList","apiVersion":"internal.virtualization.deckhouse.io/v1","items":[${good} oops]}`;
    const run = restore(text);
    expect(run.invalid).toBe(1);
    expect(run.out).toMatch(/"kubevirt\.io\/nodeName".*oops\]\}$/);
  });
});
