// peerNameRefusal over real TLS on 127.0.0.1:0 (a server that asks for a certificate of its CA without
// requiring one, so every refusal reaches the check), and the pure name checks.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type TLSSocket } from 'node:tls';
import { commonNameOf, nameRefusal, peerNameRefusal } from './peer-name.ts';
import { makeTestPki, pemOf, type TestPem } from '../../../testenv/pki.ts';

const NAMES = ['known-caller'];
const FROM = '--allowed-names';

let pki: Record<string, TestPem>;
let server: Server;

beforeAll(async () => {
  pki = await makeTestPki([
    { name: 'ca', cn: 'ca' },
    { name: 'server', cn: 'server', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
    { name: 'known', cn: 'known-caller', issuer: 'ca', usage: 'clientAuth' },
    { name: 'other', cn: 'someone-else', issuer: 'ca', usage: 'clientAuth' },
    { name: 'two', cn: 'someone-else/CN=known-caller', issuer: 'ca', usage: 'clientAuth' },
    { name: 'other-ca', cn: 'other-ca' },
    { name: 'stranger', cn: 'known-caller', issuer: 'other-ca', usage: 'clientAuth' },
  ]);
  const ca = pemOf(pki, 'ca').cert;
  server = createServer({ ...pemOf(pki, 'server'), ca, requestCert: true, rejectUnauthorized: false });
  server.on('secureConnection', (socket: TLSSocket) => {
    socket.on('error', () => undefined);
    socket.end(peerNameRefusal(socket, NAMES, FROM) ?? 'ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
}, 30_000);

afterAll(async () => {
  server.close();
  await once(server, 'close');
});

interface Answer {
  readonly text: string;
  readonly session: Buffer | undefined;
  readonly reused: boolean;
}

/** What the server answers a connection showing the certificate `as` (none when undefined). */
async function connectAs(as: string | undefined, session?: Buffer): Promise<Answer> {
  const socket = connect({
    host: '127.0.0.1',
    port: (server.address() as AddressInfo).port,
    ca: pemOf(pki, 'ca').cert,
    ...(as !== undefined && pemOf(pki, as)),
    ...(session !== undefined && { session }),
  });
  let next: Buffer | undefined;
  socket.on('session', (s: Buffer) => (next = s));
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  await once(socket, 'end');
  const reused = socket.isSessionReused();
  socket.destroy();
  return { text: Buffer.concat(chunks).toString('utf8'), session: next, reused };
}

const answerTo = async (as?: string): Promise<string> => (await connectAs(as)).text;

describe('peerNameRefusal', () => {
  it('lets a certificate of the CA with a listed name call', async () => {
    expect(await answerTo('known')).toBe('ok');
  });

  it.each([
    ['no certificate', undefined, 'Unauthorized: a client certificate is required'],
    [
      'a certificate of another CA',
      'stranger',
      'Unauthorized: the client certificate is not accepted: it is not signed by a trusted CA',
    ],
    [
      'another name of the CA',
      'other',
      'Unauthorized: the client certificate has common name "someone-else", which is not in --allowed-names',
    ],
  ])('refuses %s', async (_what, as, message) => {
    expect(await answerTo(as)).toBe(message);
  });

  it('goes by the last of several common names, as Go does', async () => {
    expect(await answerTo('two')).toBe('ok');
  });

  it('knows the caller again on a resumed TLS session', async () => {
    const first = await connectAs('known');
    const second = await connectAs('known', first.session);
    expect(second).toMatchObject({ text: 'ok', reused: true });
  });
});

describe('commonNameOf', () => {
  it.each([
    ['known', 'known-caller'],
    ['two', 'known-caller'],
  ])('reads %s', (name, cn) => {
    expect(commonNameOf(new X509Certificate(pemOf(pki, name).cert))).toBe(cn);
  });
});

describe('nameRefusal', () => {
  it.each<[string | undefined, string | undefined]>([
    ['known-caller', undefined],
    [
      'Known-Caller',
      'Unauthorized: the client certificate has common name "Known-Caller", which is not in --allowed-names',
    ],
    [undefined, 'Unauthorized: the client certificate has no common name, which is not in --allowed-names'],
  ])('answers %s', (cn, want) => {
    expect(nameRefusal(cn, NAMES, FROM)).toBe(want);
  });

  it('accepts no name from an empty list', () => {
    expect(nameRefusal('known-caller', [], FROM)).toBe(
      'Unauthorized: the client certificate has common name "known-caller", which is not in --allowed-names',
    );
  });
});
