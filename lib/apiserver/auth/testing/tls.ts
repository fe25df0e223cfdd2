/**
 * Test support for the auth tests: the certificates an api server meets (front proxy, virtualization-api and
 * another certificate of its CA, the webhook callers, strangers, a chain through an intermediate, wrong usages)
 * and a TLS server on 127.0.0.1:0 configured the way the api role's server is (requestCert,
 * rejectUnauthorized false, ca = every trusted bundle). Each connection is answered with one JSON line computed
 * from its TLSSocket, then closed.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type TLSSocket } from 'node:tls';
import { makeTestPki, pemOf, type TestPem } from '../../../../testenv/pki.ts';
import {
  namedTrust,
  parseRequestHeaderConfig,
  trustedCaPems,
  type AuthConfig,
  type NamedTrust,
} from '../config.ts';

export interface AuthPki {
  readonly config: AuthConfig;
  /** The webhook callers' trust: CN kube-api-rewriter from webhook-ca. */
  readonly webhookClients: NamedTrust;
  readonly server: TestPem;
  readonly servingCa: string;
  /**
   * Client certificates by name: frontProxy, otherName, virtualizationApi, virtualizationOther, webhookClient,
   * webhookOther, stranger, chained, serverOnly, noUsage.
   */
  readonly clients: Readonly<Record<string, TestPem>>;
}

export async function makeAuthPki(): Promise<AuthPki> {
  const pki = await makeTestPki([
    { name: 'serving-ca', cn: 'serving-ca' },
    { name: 'server', cn: 'virt-api', issuer: 'serving-ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
    { name: 'front-proxy-ca', cn: 'front-proxy-ca' },
    { name: 'frontProxy', cn: 'front-proxy-client', issuer: 'front-proxy-ca', usage: 'clientAuth' },
    { name: 'otherName', cn: 'mallory', issuer: 'front-proxy-ca', usage: 'clientAuth' },
    { name: 'serverOnly', cn: 'front-proxy-client', issuer: 'front-proxy-ca', usage: 'serverAuth' },
    { name: 'noUsage', cn: 'front-proxy-client', issuer: 'front-proxy-ca' },
    { name: 'intermediate', cn: 'front-proxy-intermediate', issuer: 'front-proxy-ca', ca: true },
    { name: 'chainedLeaf', cn: 'front-proxy-client', issuer: 'intermediate', usage: 'clientAuth' },
    { name: 'virtualization-ca', cn: 'virtualization-ca' },
    {
      name: 'virtualizationApi',
      cn: 'virtualization-api-proxy',
      issuer: 'virtualization-ca',
      usage: 'clientAuth',
    },
    {
      name: 'virtualizationOther',
      cn: 'virtualization-controller',
      issuer: 'virtualization-ca',
      usage: 'clientAuth',
    },
    { name: 'webhook-ca', cn: 'webhook-ca' },
    { name: 'webhookClient', cn: 'kube-api-rewriter', issuer: 'webhook-ca', usage: 'clientAuth' },
    { name: 'webhookOther', cn: 'someone-else', issuer: 'webhook-ca', usage: 'clientAuth' },
    { name: 'stranger-ca', cn: 'stranger-ca' },
    { name: 'stranger', cn: 'front-proxy-client', issuer: 'stranger-ca', usage: 'clientAuth' },
  ]);
  const requestHeader = parseRequestHeaderConfig({
    'requestheader-client-ca-file': pemOf(pki, 'front-proxy-ca').cert,
    'requestheader-allowed-names': '["front-proxy-client"]',
    'requestheader-username-headers': '["X-Remote-User"]',
    'requestheader-group-headers': '["X-Remote-Group"]',
    'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
  });
  const virtualization = namedTrust(
    { pem: pemOf(pki, 'virtualization-ca').cert, from: '--client-ca-file' },
    { list: ['virtualization-api-proxy'], from: '--client-ca-allowed-names' },
  );
  const webhookClients = namedTrust(
    { pem: pemOf(pki, 'webhook-ca').cert, from: '--webhook-client-ca-file' },
    { list: ['kube-api-rewriter'], from: '--webhook-client-allowed-names' },
  );
  const leaf = pemOf(pki, 'chainedLeaf');
  const names = [
    ...['frontProxy', 'otherName', 'serverOnly', 'noUsage', 'stranger'],
    ...['virtualizationApi', 'virtualizationOther', 'webhookClient', 'webhookOther'],
  ];
  const clients: Record<string, TestPem> = Object.fromEntries(names.map((n) => [n, pemOf(pki, n)]));
  // The client sends its intermediate after the leaf.
  clients['chained'] = { cert: leaf.cert + pemOf(pki, 'intermediate').cert, key: leaf.key };
  return {
    config: { requestHeader, virtualization },
    webhookClients,
    server: pemOf(pki, 'server'),
    servingCa: pemOf(pki, 'serving-ca').cert,
    clients,
  };
}

export interface ProbeServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A TLS server that answers each connection with JSON.stringify(answer(socket)) and a newline; `ca` is what
 * the TLS layer trusts (by default every bundle of the config).
 */
export async function startProbeServer(
  pki: AuthPki,
  answer: (s: TLSSocket) => unknown,
  ca: readonly string[] = trustedCaPems(pki.config),
): Promise<ProbeServer> {
  const server: Server = createServer({
    key: pki.server.key,
    cert: pki.server.cert,
    ca: [...ca],
    requestCert: true,
    rejectUnauthorized: false,
  });
  const sockets = new Set<TLSSocket>();
  server.on('secureConnection', (socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.end(`${JSON.stringify(answer(socket))}\n`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: async (): Promise<void> => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

interface Probe {
  readonly answer: unknown;
  readonly session: Buffer | undefined;
  readonly reused: boolean;
}

async function connectOnce(
  server: ProbeServer,
  pki: AuthPki,
  client?: TestPem,
  session?: Buffer,
): Promise<Probe> {
  const socket = connect({
    host: '127.0.0.1',
    port: server.port,
    ca: pki.servingCa,
    ...(client === undefined ? {} : { cert: client.cert, key: client.key }),
    ...(session === undefined ? {} : { session }),
  });
  socket.on('error', () => undefined);
  let next: Buffer | undefined;
  socket.on('session', (s: Buffer) => (next = s));
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  await once(socket, 'end');
  const reused = socket.isSessionReused();
  socket.destroy();
  return { answer: JSON.parse(text) as unknown, session: next, reused };
}

/** Connects with this client certificate (or none) and returns the server's parsed answer. */
export async function probe(server: ProbeServer, pki: AuthPki, client?: TestPem): Promise<unknown> {
  return (await connectOnce(server, pki, client)).answer;
}

/** Connects twice, the second time resuming the first TLS session; the second answer and whether it resumed. */
export async function probeResumed(
  server: ProbeServer,
  pki: AuthPki,
  client: TestPem,
): Promise<{ answer: unknown; reused: boolean }> {
  const first = await connectOnce(server, pki, client);
  const second = await connectOnce(server, pki, client, first.session);
  return { answer: second.answer, reused: second.reused };
}
