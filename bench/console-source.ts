/**
 * The stand-in VMI console socket of the console benches: a unix socket that streams TOTAL bytes to each client
 * as fast as it reads (or echoes, for round trips), and the direct reader the other paths are compared with.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export const TOTAL = 64 * 1024 * 1024;
export const MiB = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

/** Writes TOTAL bytes to each client as fast as it reads, then ends; or echoes, for the round trips. */
export function source(path: string, mode: 'blast' | 'echo'): Promise<Server> {
  const server = createServer((s: Socket) => {
    s.on('error', () => undefined);
    if (mode === 'echo') {
      s.pipe(s);
      return;
    }
    let left = TOTAL;
    const pump = (): void => {
      while (left > 0) {
        left -= CHUNK.length;
        if (!s.write(CHUNK)) {
          s.once('drain', pump);
          return;
        }
      }
      s.end();
    };
    pump();
  });
  return new Promise((resolve) =>
    server.listen(path, () => {
      resolve(server);
    }),
  );
}

/** MiB/s read straight from the socket. */
export function direct(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let n = 0;
    const s = createConnection({ path });
    s.on('data', (c: Buffer) => (n += c.length));
    s.on('end', () => {
      resolve(n / MiB / ((performance.now() - start) / 1000));
    });
    s.on('error', reject);
  });
}
