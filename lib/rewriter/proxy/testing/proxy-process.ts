/**
 * Bench support: the rewriter role (`bin/virt rewriter`) in a child process, its listening ports read from its
 * log, and its resident memory read from /proc: VmRSS now, and the peak (VmHWM) since the last reset, which
 * writing 5 to /proc/<pid>/clear_refs does (Linux ≥ 4.0; when that is not allowed, a 5 ms sampler stands in).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const VIRT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'bin', 'virt');

export interface ProxyProcess {
  readonly pid: number;
  readonly port: number;
  /** Current resident set size in bytes. */
  rss(): number;
  /** Starts a peak measurement; the returned function ends it and gives the peak RSS in bytes. */
  trackPeak(): () => number;
  stop(): Promise<number | null>;
}

function statusField(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? NaN) * 1024;
}

function waitForPort(child: ChildProcess, log: (line: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    let pending = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const rec = JSON.parse(line) as { msg?: string; port?: number; level?: string };
        if (rec.level !== 'info') log(line);
        if (rec.msg === 'kube-api proxy listening' && rec.port !== undefined) resolve(rec.port);
      }
    });
    child.once('exit', (code) => {
      reject(new Error(`the rewriter exited early (code ${String(code)})`));
    });
  });
}

export async function startProxyProcess(
  kubeconfig: string,
  log: (line: string) => void,
): Promise<ProxyProcess> {
  const child = spawn(
    VIRT,
    [
      'rewriter',
      '--kubeconfig',
      kubeconfig,
      '--kube-api-qps',
      '0',
      '--listen',
      '127.0.0.1:0',
      '--metrics-listen',
      '127.0.0.1:0',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const pid = child.pid ?? 0;
  const port = await waitForPort(child, log);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    pid,
    port,
    rss: () => statusField(pid, 'VmRSS'),
    trackPeak: (): (() => number) => {
      try {
        writeFileSync(`/proc/${pid}/clear_refs`, '5');
        return () => statusField(pid, 'VmHWM');
      } catch {
        let peak = statusField(pid, 'VmRSS');
        const timer = setInterval(() => {
          peak = Math.max(peak, statusField(pid, 'VmRSS'));
        }, 5);
        return () => {
          clearInterval(timer);
          return Math.max(peak, statusField(pid, 'VmRSS'));
        };
      }
    },
    stop: async (): Promise<number | null> => {
      child.kill('SIGTERM');
      return await exited;
    },
  };
}
