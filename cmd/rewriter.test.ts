import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const virt = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'virt');

interface Exit {
  code: number | null;
  lines: Record<string, unknown>[];
  /** stderr as it came, line by line. */
  text: string[];
}

/** Starts `virt rewriter`, sends SIGTERM once `ready` matches a log line (never, when undefined). */
function runRewriter(args: string[], ready?: string): Promise<Exit> {
  const child = spawn(virt, ['rewriter', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  const text: string[] = [];
  let pending = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const l of parts) {
      text.push(l);
      const rec = JSON.parse(l) as Record<string, unknown>;
      lines.push(rec);
      if (rec['msg'] === ready) child.kill('SIGTERM');
    }
  });
  return new Promise((resolve) =>
    child.once('close', (code) => {
      resolve({ code, lines, text });
    }),
  );
}

const PORTS = ['--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0'];
const UPSTREAM = ['--upstream', 'http://127.0.0.1:1', '--metrics-listen', '127.0.0.1:0'];

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
        reason: 'KV_ERR_CONFIG: --listen "nowhere" must be host:port or :port (port 0-65535)',
      }),
    );
  }, 60_000);

  it('refuses a kube-api address off loopback in one line that says why and names the flag that allows it', async () => {
    const r = await runRewriter([...UPSTREAM, '--listen', '0.0.0.0:0']);
    expect(r.code).toBe(1);
    expect(r.text).toHaveLength(1);
    expect(r.lines[0]).toMatchObject({
      level: 'error',
      msg: 'main failed',
      reason: expect.stringMatching(
        /^KV_ERR_CONFIG: --listen 0\.0\.0\.0:0: not a loopback address; .*tokens of its clients would cross the network in clear text.*--allow-remote-listen/,
      ),
    });
    expect(r.lines[0]).not.toHaveProperty('stack');
  }, 60_000);

  it('serves on every interface with --allow-remote-listen, and warns that it does', async () => {
    const r = await runRewriter(
      [...UPSTREAM, '--listen', '0.0.0.0:0', '--allow-remote-listen'],
      'health server listening',
    );
    expect(r.code).toBe(0);
    expect(r.lines.map((l) => l['msg'])).toEqual(
      expect.arrayContaining([
        'kube-api proxy accepts remote clients (--allow-remote-listen)',
        'kube-api proxy listening',
        'stopped',
      ]),
    );
  }, 60_000);
});
