import { afterEach, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type TLSSocket } from 'node:tls';
import { generateKeyPair, issueCertificate, randomSerial, type ExtendedKeyUsage } from './certificate.ts';

interface Pem {
  readonly cert: string;
  readonly key: string;
}

const now = Date.now();
const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000) };

function makeCa(): Pem {
  const key = generateKeyPair();
  const spec = {
    commonName: 'kubevirt.io@test',
    serial: randomSerial(),
    ...validity,
    ca: true,
    extKeyUsage: [],
    dnsNames: [],
    ipAddresses: [],
    publicKeyPem: key.publicKeyPem,
  };
  return {
    cert: issueCertificate(spec, { kind: 'self', keyPem: key.privateKeyPem }),
    key: key.privateKeyPem,
  };
}

function makeLeaf(ca: Pem, commonName: string, usage: ExtendedKeyUsage[], dnsNames: string[] = []): Pem {
  const key = generateKeyPair();
  const spec = {
    commonName,
    serial: randomSerial(),
    ...validity,
    ca: false,
    extKeyUsage: usage,
    dnsNames,
    ipAddresses: [],
    publicKeyPem: key.publicKeyPem,
  };
  return {
    cert: issueCertificate(spec, { kind: 'ca', certPem: ca.cert, keyPem: ca.key }),
    key: key.privateKeyPem,
  };
}

const ca = makeCa();
const serving = makeLeaf(ca, 'virt-api.ns.pod.cluster.local', ['serverAuth'], ['virt-api.ns.svc']);
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/**
 * A TLS server on 127.0.0.1 (port 0). Without `clientCa` it answers 'ok'; with it, it asks for a client
 * certificate and answers 'ok' or why the certificate was not authorized (`reject` makes the handshake refuse it).
 */
async function listen(clientCa?: string, reject = false): Promise<number> {
  const options =
    clientCa === undefined ? {} : { ca: clientCa, requestCert: true, rejectUnauthorized: reject };
  const server = createServer({ cert: serving.cert, key: serving.key, ...options }, (socket) => {
    socket.on('error', () => undefined);
    const refused = clientCa !== undefined && !socket.authorized;
    socket.end(refused ? `refused: ${String(socket.authorizationError)}` : 'ok');
  });
  server.on('tlsClientError', () => undefined);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** What the client gets: the server's answer, or the error code of the failed connection. */
function call(port: number, servername: string, client?: Pem): Promise<string> {
  return new Promise((resolve) => {
    const socket: TLSSocket = connect({ host: '127.0.0.1', port, servername, ca: ca.cert, ...client });
    let data = '';
    socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
    socket.on('end', () => {
      resolve(data);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      resolve(err.code ?? err.message);
    });
  });
}

describe('certificates from issueCertificate in node:tls', () => {
  it('serve the DNS name they carry to a client that trusts only the CA', async () => {
    const port = await listen();
    expect(await call(port, 'virt-api.ns.svc')).toBe('ok');
  });

  it('are refused by the client for another name', async () => {
    const port = await listen();
    expect(await call(port, 'virt-api.other.svc')).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('are refused by a client that trusts another CA', async () => {
    const port = await listen();
    const stranger = makeCa();
    const refused = await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, servername: 'virt-api.ns.svc', ca: stranger.cert });
      socket.on('secureConnect', () => {
        resolve('connected');
      });
      socket.on('error', (err: NodeJS.ErrnoException) => {
        resolve(err.code ?? err.message);
      });
    });
    expect(refused).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('do not authenticate a client whose certificate another CA signed', async () => {
    const client = makeLeaf(makeCa(), 'kubevirt.io:system:client:virt-handler', ['clientAuth']);
    expect(await call(await listen(ca.cert), 'virt-api.ns.svc', client)).toMatch(/^refused: /);
  });

  it('authenticate a client with a clientAuth certificate in mutual TLS', async () => {
    const client = makeLeaf(ca, 'kubevirt.io:system:client:virt-handler', ['clientAuth']);
    expect(await call(await listen(ca.cert), 'virt-api.ns.svc', client)).toBe('ok');
    expect(await call(await listen(ca.cert, true), 'virt-api.ns.svc', client)).toBe('ok');
  });

  it('do not authenticate a client with a serverAuth-only certificate: Node enforces the purpose', async () => {
    const client = makeLeaf(ca, 'kubevirt.io:system:node:virt-handler', ['serverAuth']);
    expect(await call(await listen(ca.cert), 'virt-api.ns.svc', client)).toBe('refused: INVALID_PURPOSE');
    expect(await call(await listen(ca.cert, true), 'virt-api.ns.svc', client)).not.toBe('ok');
  });
});
