/**
 * For the migration proxy's tests: a test PKI like the cluster's (one CA, the handlers' server and client
 * certificates, and the ones a stranger would bring), a kubelet-like pods dir with a source and a target
 * launcher Pod, stand-ins for the target launcher's libvirt and QEMU sockets, and a unix client that records
 * what comes back.
 */
import { mkdir } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { HANDLER_CLIENT_CN, HANDLER_SERVER_CN } from '../../../kubevirt/certificate-names.ts';
import { makeTestPki, pemOf, type TestPem } from '../../../../testenv/pki.ts';
import { podPathText, type PodPath } from '../../../rpc/index.ts';
import type { MigrationTls } from '../tls.ts';

export async function migrationPki(): Promise<Record<string, TestPem>> {
  return makeTestPki([
    { name: 'ca', cn: 'kubevirt.io:system:ca', ca: true },
    { name: 'server', cn: HANDLER_SERVER_CN, issuer: 'ca', usage: 'serverAuth' },
    { name: 'client', cn: HANDLER_CLIENT_CN, issuer: 'ca', usage: 'clientAuth' },
    { name: 'other-name', cn: 'someone-else', issuer: 'ca', usage: 'clientAuth' },
    { name: 'server-usage', cn: HANDLER_CLIENT_CN, issuer: 'ca', usage: 'serverAuth' },
    { name: 'other-server', cn: 'not-a-handler', issuer: 'ca', usage: 'serverAuth' },
    { name: 'other-ca', cn: 'other-ca', ca: true },
    { name: 'stranger', cn: HANDLER_CLIENT_CN, issuer: 'other-ca', usage: 'clientAuth' },
  ]);
}

/** The handlers' TLS material, the server pair swapped for `server` when given. */
export function migrationTls(pki: Record<string, TestPem>, server = 'server'): MigrationTls {
  const b = (s: string): Buffer => Buffer.from(s);
  return {
    ca: b(pemOf(pki, 'ca').cert),
    cert: b(pemOf(pki, server).cert),
    key: b(pemOf(pki, server).key),
    clientCert: b(pemOf(pki, 'client').cert),
    clientKey: b(pemOf(pki, 'client').key),
  };
}

/**
 * A stand-in for a launcher socket: answers each chunk with `<name>:<chunk>`, and when the caller ends its
 * sending, says `<name> saw end` and ends its own. Records what reached it.
 */
export interface FakeEnd {
  readonly received: string[];
  connections: number;
  /** The server side of the open connections. */
  readonly open: Set<Socket>;
  close(): Promise<void>;
}

export async function fakeEnd(at: PodPath, name: string): Promise<FakeEnd> {
  const path = podPathText(at);
  await mkdir(dirname(path), { recursive: true });
  const open = new Set<Socket>();
  const end: FakeEnd = {
    received: [],
    connections: 0,
    open,
    close: async (): Promise<void> => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
  const server: Server = createServer({ allowHalfOpen: true }, (c) => {
    end.connections++;
    open.add(c);
    c.on('error', () => undefined).on('close', () => open.delete(c));
    c.on('data', (d: Buffer) => {
      end.received.push(d.toString());
      c.write(`${name}:${d.toString()}`);
    });
    c.on('end', () => {
      c.end(`${name} saw end`);
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return end;
}

/** A unix client of a source socket, recording what it reads. */
export interface Client {
  readonly socket: Socket;
  text(): string;
  /** Resolves when the far side ended its sending (true) or the socket closed without that (false). */
  readonly ended: Promise<boolean>;
  readonly closed: Promise<void>;
}

/**
 * With `halfOpen` the client keeps sending after the far side's end until it ends itself; without it, it ends
 * and closes at the far side's end (a unix socket has no reset: a broken tunnel reads as an end).
 */
export function dialUnix(path: string, o: { halfOpen?: boolean } = {}): Client {
  const socket = createConnection({ path, allowHalfOpen: o.halfOpen ?? false });
  const chunks: Buffer[] = [];
  socket.on('error', () => undefined);
  socket.on('data', (d: Buffer) => chunks.push(d));
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      resolve();
    }),
  );
  const ended = new Promise<boolean>((resolve) => {
    socket.once('end', () => {
      resolve(true);
    });
    socket.once('close', () => {
      resolve(false);
    });
  });
  return { socket, text: () => Buffer.concat(chunks).toString(), ended, closed };
}
