import { describe, expect, it } from '@jest/globals';
import { kvRestore } from '../../rename/testing/synthetic-rules.ts';
import { internalVmi, originalVmi } from '../../rename/testing/objects.ts';
import { WatchRestorer } from './watch-restore.ts';

function restorer(): { r: WatchRestorer; invalid: () => number; events: () => number } {
  let invalid = 0;
  let events = 0;
  const r = new WatchRestorer({
    ctx: kvRestore,
    onInvalid: () => invalid++,
    onEvent: () => events++,
  });
  return { r, invalid: () => invalid, events: () => events };
}

const line = (ev: unknown): string => `${JSON.stringify(ev)}\n`;

describe('WatchRestorer', () => {
  it('hands back each event as soon as its line is complete, restored', () => {
    const { r } = restorer();
    const first = line({ type: 'ADDED', object: internalVmi({ name: 'a' }) });
    const cut = 17;
    expect(r.push(Buffer.from(first.slice(0, cut)))).toBe('');
    const out = r.push(Buffer.from(first.slice(cut)));
    expect(out.endsWith('\n')).toBe(true);
    expect(JSON.parse(out)).toEqual({ type: 'ADDED', object: originalVmi({ name: 'a' }) });
  });

  it('decodes a character cut across two chunks', () => {
    const { r } = restorer();
    const bytes = Buffer.from(
      line({ type: 'ADDED', object: internalVmi({ name: 'a', extra: { spec: { note: '漢字' } } }) }),
    );
    const cut = bytes.indexOf(Buffer.from('漢')) + 1;
    const out = r.push(bytes.subarray(0, cut)) + r.push(bytes.subarray(cut));
    expect(JSON.parse(out)).toEqual({
      type: 'ADDED',
      object: originalVmi({ name: 'a', extra: { spec: { note: '漢字' } } }),
    });
  });

  it('keeps the order of several events in one chunk and restores bookmarks', () => {
    const { r, events } = restorer();
    const bookmark = {
      type: 'BOOKMARK',
      object: {
        kind: 'InternalVirtualizationVirtualMachineInstance',
        apiVersion: 'internal.virtualization.deckhouse.io/v1',
        metadata: { resourceVersion: '7' },
      },
    };
    const text =
      line({ type: 'ADDED', object: internalVmi({ name: 'a' }) }) +
      line(bookmark) +
      line({ type: 'DELETED', object: internalVmi({ name: 'b' }) });
    const out = r
      .push(Buffer.from(text))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(out).toEqual([
      { type: 'ADDED', object: originalVmi({ name: 'a' }) },
      {
        type: 'BOOKMARK',
        object: {
          kind: 'VirtualMachineInstance',
          apiVersion: 'kubevirt.io/v1',
          metadata: { resourceVersion: '7' },
        },
      },
      { type: 'DELETED', object: originalVmi({ name: 'b' }) },
    ]);
    expect(events()).toBe(3);
  });

  it('leaves out events of excluded objects (an original kind)', () => {
    const { r } = restorer();
    const out = r.push(
      Buffer.from(
        line({ type: 'ADDED', object: originalVmi({ name: 'real' }) }) +
          line({ type: 'ADDED', object: internalVmi({ name: 'ours' }) }),
      ),
    );
    expect(out.trimEnd().split('\n')).toHaveLength(1);
    expect(out).toContain('"name":"ours"');
  });

  it('passes lines that are not JSON or not known events through, in place, and counts them', () => {
    const { r, invalid } = restorer();
    const ev = line({ type: 'MODIFIED', object: internalVmi({ name: 'a' }) });
    const out = r.push(Buffer.from(`not json\n${ev}{"type":"SURPRISE","object":{"kind":"X"}}\n[1]\n`));
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toBe('not json');
    expect(JSON.parse(lines[1] as string)).toEqual({ type: 'MODIFIED', object: originalVmi({ name: 'a' }) });
    expect(lines.slice(2)).toEqual(['{"type":"SURPRISE","object":{"kind":"X"}}', '[1]']);
    expect(invalid()).toBe(3);
  });

  it('returns an ERROR Status unchanged and skips blank lines', () => {
    const { r } = restorer();
    const err = '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","code":410,"reason":"Expired"}}';
    expect(r.push(Buffer.from(`\n${err}\n\n`))).toBe(`${err}\n`);
  });

  it('restores a last event that came without its newline at the end', () => {
    const { r } = restorer();
    expect(r.push(Buffer.from(JSON.stringify({ type: 'ADDED', object: internalVmi({ name: 'z' }) })))).toBe(
      '',
    );
    expect(JSON.parse(r.end())).toEqual({ type: 'ADDED', object: originalVmi({ name: 'z' }) });
  });
});
