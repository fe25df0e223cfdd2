import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const virt = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'virt');

interface Exit {
  code: number | null;
  lines: Record<string, unknown>[];
}

/** Starts `virt rewriter`, sends SIGTERM once `ready` matches a log line (never, when undefined). */
function runRewriter(args: string[], ready?: string): Promise<Exit> {
  const child = spawn(virt, ['rewriter', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  let pending = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const l of parts) {
      const rec = JSON.parse(l) as Record<string, unknown>;
      lines.push(rec);
      if (rec['msg'] === ready) child.kill('SIGTERM');
    }
  });
  return new Promise((resolve) =>
    child.once('close', (code) => {
      resolve({ code, lines });
    }),
  );
}

const PORTS = ['--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0'];

describe('virt rewriter', () => {
  it('serves until SIGTERM, then stops gracefully with exit 0', async () => {
    const r = await runRewriter(['--upstream', 'http://127.0.0.1:1', ...PORTS], 'health server listening');
    expect(r.code).toBe(0);
    const msgs = r.lines.map((l) => l['msg']);
    expect(msgs).toEqual(expect.arrayContaining(['kube-api proxy listening', 'shutting down', 'stopped']));
    expect(r.lines.find((l) => l['msg'] === 'kube-api proxy listening')).toMatchObject({
      component: 'rewriter',
      upstream: 'http://127.0.0.1:1',
    });
  }, 60_000);

  it('exits 1 and says why on a bad listen address', async () => {
    const r = await runRewriter(['--upstream', 'http://127.0.0.1:1', '--listen', 'nowhere']);
    expect(r.code).toBe(1);
    expect(r.lines).toContainEqual(
      expect.objectContaining({
        msg: 'main failed',
        reason: expect.stringContaining('listen address "nowhere"'),
      }),
    );
  }, 60_000);
});
