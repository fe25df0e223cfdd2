/**
 * The launcher's port-forward socket (`portforward-sock` in the `sockets` emptyDir), the last hop of
 * `portforward/{port}/{protocol}` (api → handler → launcher Pod): the launcher lives in the Pod's network
 * namespace, which the handler on the node cannot dial into (KubeVirt's handler enters the namespace from Go,
 * pkg/virt-handler/rest/portforward.go). Per connection the handler sends one request line, `tcp <port>\n`;
 * the launcher connects to 127.0.0.1:<port> in the Pod, where the masquerade NAT's output rule sends it on to
 * the guest, and answers `ok\n` (then the bytes flow both ways unchanged until either side closes) or
 * `error <why>\n` and closes. `udp <port>\n` connects a UDP socket the same way; then each datagram travels
 * the stream as a 2-byte big-endian length and its bytes, both ways. Pure but for readLine.
 */
import type { Duplex } from 'node:stream';
import { KvError } from '../kernel/errors/errors.ts';

const PORT_FORWARD_PROTOCOLS = ['tcp', 'udp'] as const;
type PortForwardProtocol = (typeof PORT_FORWARD_PROTOCOLS)[number];

export interface PortForwardRequest {
  readonly protocol: PortForwardProtocol;
  readonly port: number;
}

/** The longest request or answer line the other side reads before it gives up. */
const MAX_LINE_BYTES = 512;

export function requestLine(r: PortForwardRequest): string {
  return `${r.protocol} ${r.port}\n`;
}

/** A port number 1-65535 in decimal, else undefined. */
export function parsePort(text: string): number | undefined {
  if (!/^[1-9]\d{0,4}$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}

/** The request of a line (without its newline); KV_ERR_INVALID for anything else. */
export function parseRequestLine(line: string): PortForwardRequest {
  const [protocol = '', portText = '', ...rest] = line.split(' ');
  const port = parsePort(portText);
  if (
    !(PORT_FORWARD_PROTOCOLS as readonly string[]).includes(protocol) ||
    port === undefined ||
    rest.length > 0
  ) {
    throw new KvError('KV_ERR_INVALID', `not a port-forward request: ${JSON.stringify(line.slice(0, 40))}`);
  }
  return { protocol: protocol as PortForwardProtocol, port };
}

export type PortForwardAnswer = { readonly ok: true } | { readonly ok: false; readonly error: string };

export function answerLine(a: PortForwardAnswer): string {
  return a.ok ? 'ok\n' : `error ${a.error.replace(/[\r\n]+/g, ' ').slice(0, MAX_LINE_BYTES - 8)}\n`;
}

export function parseAnswerLine(line: string): PortForwardAnswer {
  if (line === 'ok') return { ok: true };
  if (line.startsWith('error ')) return { ok: false, error: line.slice('error '.length) };
  return { ok: false, error: `the launcher answered ${JSON.stringify(line.slice(0, 40))}` };
}

/**
 * The first line a socket sends (without its newline), within timeoutMs and MAX_LINE_BYTES; what came after
 * it is put back to be read next. Rejects when the socket ends, errs, or says too much first.
 */
export function readLine(socket: Duplex, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const done = (err: Error | undefined, line?: string): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onEnd);
      if (err !== undefined) reject(err);
      else resolve(line ?? '');
    };
    const onData = (chunk: Buffer): void => {
      got = Buffer.concat([got, chunk]);
      const at = got.indexOf(0x0a);
      if (at < 0) {
        if (got.length > MAX_LINE_BYTES) done(new KvError('KV_ERR_DECODE', 'the line is too long'));
        return;
      }
      socket.pause();
      const rest = got.subarray(at + 1);
      if (rest.length > 0) socket.unshift(rest);
      done(undefined, got.subarray(0, at).toString('utf8'));
    };
    const onEnd = (err?: Error): void => {
      done(err ?? new KvError('KV_ERR_TRANSPORT', 'the connection ended before a whole line'));
    };
    const timer = setTimeout(() => {
      done(new KvError('KV_ERR_TIMEOUT', `no line within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('error', onEnd);
  });
}

/** The largest UDP payload over IPv4. */
export const MAX_DATAGRAM_BYTES = 65_507;

/** A datagram as it travels a port-forward stream. */
export function frameDatagram(payload: Uint8Array): Buffer {
  if (payload.length > MAX_DATAGRAM_BYTES) {
    throw new KvError(
      'KV_ERR_INVALID',
      `a datagram of ${payload.length} bytes is above ${MAX_DATAGRAM_BYTES}`,
    );
  }
  const head = Buffer.alloc(2);
  head.writeUInt16BE(payload.length);
  return Buffer.concat([head, payload]);
}

/** Cuts the datagrams out of a port-forward stream, whatever the chunks it arrives in. */
export class DatagramReader {
  private pending = Buffer.alloc(0);

  /** The datagrams completed by this chunk. */
  push(chunk: Uint8Array): Buffer[] {
    this.pending = Buffer.concat([this.pending, chunk]);
    const out: Buffer[] = [];
    while (this.pending.length >= 2) {
      const size = this.pending.readUInt16BE(0);
      if (this.pending.length < 2 + size) break;
      out.push(this.pending.subarray(2, 2 + size));
      this.pending = this.pending.subarray(2 + size);
    }
    return out;
  }
}
