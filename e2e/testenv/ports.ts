/**
 * Free loopback TCP ports: bind n listeners on port 0 at once (so the OS hands out n distinct unused
 * ports), then close them and return the numbers.
 */
import { createServer, type Server } from 'node:net';

function listen(port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => {
      resolve(srv);
    });
  });
}

function close(srv: Server): Promise<number> {
  const addr = srv.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return new Promise((resolve) =>
    srv.close(() => {
      resolve(port);
    }),
  );
}

export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: n }, () => listen()));
  return Promise.all(servers.map(close));
}

/** True when every port can be bound on 127.0.0.1 right now. */
export async function portsFree(ports: number[]): Promise<boolean> {
  try {
    const servers = await Promise.all(ports.map((p) => listen(p)));
    await Promise.all(servers.map(close));
    return true;
  } catch {
    return false;
  }
}
