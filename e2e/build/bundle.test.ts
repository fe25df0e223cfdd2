/**
 * The image's bundle (scripts/build.mjs): it runs on plain node with the version baked in, and the launcher
 * role's chunk graph (its command, the role it loads on demand, and its probe, run every probe period) holds no
 * other role's packages (the launcher runs once per VM), and no chunk holds undici (node:http costs less memory).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LAUNCHER_NODE_FLAGS } from '../../lib/launcher/node-flags.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
let out = '';

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'kv-bundle-'));
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), out], {
    env: { ...process.env, KV_GIT_COMMIT: 'c0ffee' },
    stdio: 'ignore',
  });
}, 120_000);
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

const virt = (...args: string[]): ReturnType<typeof spawnSync> =>
  spawnSync(process.execPath, [join(out, 'virt.mjs'), ...args], { encoding: 'utf8', cwd: tmpdir() });

/** Every chunk a module imports statically (dynamic import() edges are left out: those load on demand). */
function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(join(out, 'chunks', file), 'utf8');
  // `import {…} from "./x.mjs"`, and the side-effect form `import "./x.mjs"` esbuild writes for shared chunks.
  for (const m of text.matchAll(/^(?:import|export)\b(?:[^;]*?from)?\s*"\.\/([^"]+)"/gm))
    staticClosure(m[1] ?? '', seen);
  return seen;
}

describe('the image bundle', () => {
  it('runs from anywhere with the version baked in, and refuses an unknown role', () => {
    expect(virt('--version').stdout).toBe('0.1.0 (commit c0ffee)\n');
    const help = virt('launcher', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--grace-period-seconds');
    const bad = virt('bogus');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain("unknown command 'bogus'");
  });

  it('the dist/virt wrapper runs the launcher role, only it, with the launcher node flags', () => {
    // A `node` first on PATH that records its arguments, then runs the real one.
    const shim = join(out, 'shim');
    mkdirSync(shim);
    writeFileSync(
      join(shim, 'node'),
      `#!/bin/sh\necho "$@" >> ${shim}/args\nexec ${process.execPath} "$@"\n`,
      {
        mode: 0o755,
      },
    );
    const env = { ...process.env, PATH: `${shim}:${process.env['PATH'] ?? ''}` };
    const wrapped = (...args: string[]): string => {
      const r = spawnSync(join(out, 'virt'), args, { encoding: 'utf8', env });
      expect(r.status).toBe(0);
      return r.stdout;
    };
    expect(wrapped('launcher', '--help')).toContain('--emulation <mode>');
    expect(wrapped('--version')).toBe('0.1.0 (commit c0ffee)\n');
    const flags = LAUNCHER_NODE_FLAGS.join(' ');
    expect(readFileSync(join(shim, 'args'), 'utf8').split('\n')).toEqual([
      `${flags} ${join(out, 'virt.mjs')} launcher --help`,
      `${join(out, 'virt.mjs')} --version`,
      '',
    ]);
  });

  /** The chunks that hold code of the package `pkg`. */
  const chunksWith = (pkg: string): string[] =>
    readdirSync(join(out, 'chunks'))
      .filter((f) => f.endsWith('.mjs'))
      .filter((f) => readFileSync(join(out, 'chunks', f), 'utf8').includes(`node_modules/${pkg}/`));

  it('holds no @kubernetes/client-node: the kubeconfig loader is our own', () => {
    expect(chunksWith('yaml')).not.toEqual([]);
    expect(chunksWith('@kubernetes/client-node')).toEqual([]);
  });

  it('holds no undici: every role sends HTTP over node:http', () => {
    expect(chunksWith('ws')).not.toEqual([]);
    expect(chunksWith('undici')).toEqual([]);
  });

  /** The chunk the launcher command's chunk imports on demand for `module` (role, probe-command, …). */
  const onDemand = (entry: string, module: string): string => {
    const text = readFileSync(join(out, 'chunks', entry), 'utf8');
    const m = new RegExp(`import\\("\\./(${module}-[A-Z0-9]+\\.mjs)"\\)`).exec(text);
    return m?.[1] ?? '';
  };

  it.each(['role', 'probe-command'])(
    'gives the launcher command and its %s none of the controller or rewriter packages',
    (module) => {
      const entry = readdirSync(join(out, 'chunks')).find((f) => /^launcher-[A-Z0-9]+\.mjs$/.test(f)) ?? '';
      const loaded = [...staticClosure(entry), ...staticClosure(onDemand(entry, module))].map((f) =>
        readFileSync(join(out, 'chunks', f), 'utf8'),
      );
      expect(onDemand(entry, module)).not.toBe('');
      expect(loaded.some((t) => t.includes('node_modules/@grpc/grpc-js/'))).toBe(true);
      for (const pkg of ['@kubernetes/client-node', 'prom-client', 'undici', 'yaml']) {
        expect([pkg, loaded.some((t) => t.includes(`node_modules/${pkg}/`))]).toEqual([pkg, false]);
      }
    },
  );
});
