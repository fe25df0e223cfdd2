import { describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import {
  answerLine,
  DatagramReader,
  frameDatagram,
  MAX_DATAGRAM_BYTES,
  parseAnswerLine,
  parsePort,
  parseRequestLine,
  readLine,
  requestLine,
} from './port-forward.ts';

describe('the port-forward line protocol', () => {
  it('round-trips a request and both answers', () => {
    expect(requestLine({ protocol: 'tcp', port: 22 })).toBe('tcp 22\n');
    expect(parseRequestLine('tcp 22')).toEqual({ protocol: 'tcp', port: 22 });
    expect(parseAnswerLine(answerLine({ ok: true }).trimEnd())).toEqual({ ok: true });
    const refused = answerLine({ ok: false, error: 'port 9:\nconnection refused' });
    expect(refused).toBe('error port 9: connection refused\n');
    expect(parseAnswerLine(refused.trimEnd())).toEqual({ ok: false, error: 'port 9: connection refused' });
    expect(parseAnswerLine('what')).toEqual({ ok: false, error: 'the launcher answered "what"' });
  });

  it.each(['sctp 53', 'tcp 0', 'tcp 65536', 'tcp 022', 'tcp 22 x', 'tcp', '', 'TCP 22'])(
    'refuses the request %j',
    (line) => {
      expect(() => parseRequestLine(line)).toThrow('not a port-forward request');
    },
  );

  it.each([
    ['1', 1],
    ['65535', 65535],
    ['0', undefined],
    ['65536', undefined],
    ['-1', undefined],
    ['1e3', undefined],
    ['', undefined],
  ])('reads port %j as %s', (text, port) => {
    expect(parsePort(text)).toBe(port);
  });
});

describe('readLine', () => {
  it('gives the first line and leaves what followed it to be read', async () => {
    const s = new PassThrough();
    s.write('ok\nfirst bytes');
    expect(await readLine(s, 1000)).toBe('ok');
    s.resume();
    const rest = await new Promise<string>((r) =>
      s.once('data', (d: Buffer) => {
        r(d.toString());
      }),
    );
    expect(rest).toBe('first bytes');
  });

  it('refuses a line that is too long, an end before the line, and silence', async () => {
    const long = new PassThrough();
    long.write('x'.repeat(600));
    await expect(readLine(long, 1000)).rejects.toThrow('the line is too long');
    const ended = new PassThrough();
    ended.end('no newline');
    await expect(readLine(ended, 1000)).rejects.toThrow('ended before a whole line');
    await expect(readLine(new PassThrough(), 50)).rejects.toThrow('no line within 50 ms');
  });
});

describe('datagrams on a port-forward stream', () => {
  it('come out whole whatever the chunks, empty ones and the largest too', () => {
    const big = Buffer.alloc(MAX_DATAGRAM_BYTES, 7);
    const stream = Buffer.concat([
      frameDatagram(Buffer.from('one')),
      frameDatagram(Buffer.alloc(0)),
      frameDatagram(big),
    ]);
    const reader = new DatagramReader();
    const out: Buffer[] = [];
    for (let at = 0; at < stream.length; at += 1000) out.push(...reader.push(stream.subarray(at, at + 1000)));
    expect(out.map((d) => d.length)).toEqual([3, 0, MAX_DATAGRAM_BYTES]);
    expect(out[0]?.toString()).toBe('one');
    expect(out[2]?.equals(big)).toBe(true);
  });

  it('refuses a payload above what UDP carries', () => {
    expect(() => frameDatagram(Buffer.alloc(MAX_DATAGRAM_BYTES + 1))).toThrow('above 65507');
  });
});
