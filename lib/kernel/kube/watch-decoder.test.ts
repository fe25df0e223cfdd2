import { describe, expect, it } from '@jest/globals';
import { KvError } from '../errors/errors.ts';
import { decodeWatchEvent, decodeWatchStream } from './watch-decoder.ts';

describe('decodeWatchEvent', () => {
  it.each(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'])('accepts %s', (type) => {
    expect(decodeWatchEvent(`{"type":"${type}","object":{"metadata":{}}}`)).toEqual({
      type,
      object: { metadata: {} },
    });
  });

  it.each([
    ['not JSON', '{"type":'],
    ['unknown type', '{"type":"SYNC","object":{}}'],
    ['missing object', '{"type":"ADDED"}'],
    ['null object', '{"type":"ADDED","object":null}'],
    ['not an object', '42'],
    ['null', 'null'],
  ])('rejects %s with KV_ERR_DECODE', (_name, line) => {
    let err: unknown;
    try {
      decodeWatchEvent(line);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(KvError);
    expect((err as KvError).code).toBe('KV_ERR_DECODE');
  });
});

describe('decodeWatchStream', () => {
  async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
    const enc = new TextEncoder();
    for (const p of parts) {
      await Promise.resolve();
      yield enc.encode(p);
    }
  }

  it('skips blank lines and decodes a last line without newline', async () => {
    const out: unknown[] = [];
    for await (const ev of decodeWatchStream(
      chunks(
        '{"type":"ADDED","obj',
        'ect":{"metadata":{}}}\n\n  \n',
        '{"type":"DELETED","object":{"metadata":{}}}',
      ),
    )) {
      out.push(ev.type);
    }
    expect(out).toEqual(['ADDED', 'DELETED']);
  });
});
