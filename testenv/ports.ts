/**
 * Free loopback TCP ports for the control plane, chosen BELOW the kernel's ephemeral range: a port from
 * that range (what port 0 hands out) can be taken as the local port of any outbound connection on a busy
 * machine while kube-apiserver is down for a restart, and the restart then fails with EADDRINUSE.
 */
import { createServer, type Server } from 'node:net';

function listen(port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, host, () => {
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

const LOW = 20_000;
const HIGH = 32_000;

/** n distinct ports in [20000, 32000) that can be bound on host (127.0.0.1 unless given) right now. */
export async function freePorts(
  n: number,
  random: () => number = Math.random,
  host = '127.0.0.1',
): Promise<number[]> {
  const picked: number[] = [];
  for (let tries = 0; picked.length < n; tries++) {
    if (tries > 200) throw new Error(`no ${n} free ports in [${LOW}, ${HIGH}) after 200 tries`);
    const port = LOW + Math.floor(random() * (HIGH - LOW));
    if (!picked.includes(port) && (await portsFree([port], host))) picked.push(port);
  }
  return picked;
}

/** True when every port can be bound on host (127.0.0.1 unless given) right now. */
export async function portsFree(ports: number[], host = '127.0.0.1'): Promise<boolean> {
  try {
    const servers = await Promise.all(ports.map((p) => listen(p, host)));
    await Promise.all(servers.map(close));
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits until port can be bound on 127.0.0.1. A SIGKILLed multi-threaded process (kube-apiserver) can show
 * as a zombie in /proc before its last thread has closed the listening socket, so "the PID is gone" is not
 * yet "the port is free".
 */
export async function waitPortFree(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await portsFree([port]))) {
    if (Date.now() >= deadline) throw new Error(`port ${port} is still in use after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
