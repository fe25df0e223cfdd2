import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brokenVmi, generatedDomains } from '../lib/launcher/converter/testing/generated.ts';
import { ROLES } from './roles.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// Each case starts the binary, which loads every role's command (the kube client among them): that takes
// seconds when the machine is busy, and one case starts a process per role at once.
jest.setTimeout(60_000);

function run(bin: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(join(root, 'bin', bin), args, { timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('virt entrypoint', () => {
  it('lists every role in --help', async () => {
    const r = await run('virt', ['--help']);
    expect(r.code).toBe(0);
    for (const role of ['operator', 'controller', 'api', 'handler', 'launcher', 'rewriter', 'pr-helper']) {
      expect(r.stdout).toMatch(new RegExp(`^  ${role} `, 'm'));
    }
  });

  it('keeps built roles out of the refusing ROLES table', () => {
    for (const built of ['rewriter', 'launcher', 'controller', 'pr-helper'])
      expect(ROLES.map((x) => x.name)).not.toContain(built);
  });

  it('lists the flags of the rewriter role in its --help', async () => {
    const r = await run('virt', ['rewriter', '--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--listen', '--upstream', '--webhook-listen', '--metrics-listen', '--max-body-bytes'])
      expect(r.stdout).toContain(flag);
    const help = r.stdout.replace(/\s+/g, ' ');
    expect(help).toContain(
      'loopback only (127.0.0.0/8, ::1, localhost); it forwards only requests with their own Authorization (401 otherwise)',
    );
    expect(help).toMatch(/--listen-unix <path> kube-api proxy on a unix socket too \(created 0600\)/);
    expect(help).toMatch(/--allow-remote-listen let --listen take a non-loopback address/);
  });

  it('prints the version and the git commit', async () => {
    const r = await run('virt', ['--version']);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+ \(commit ([0-9a-f]{40}|unknown)\)$/);
  });

  it('lists the flags of a role in its --help', async () => {
    const r = await run('virt', ['launcher', '--help']);
    expect(r.stdout).toContain('--grace-period-seconds');
    expect(r.stdout).toContain('node-labeller');
  });

  it("names the launcher image's virtiofsd in the controller's --help, on by default", async () => {
    const r = await run('virt', ['controller', '--help']);
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(
      /--virtiofsd <path> .*\(default: "\/usr\/libexec\/virtiofsd"\)/,
    );
  });

  it('refuses roles that are not built yet, with exit 2 and a clear message', async () => {
    const pending = ROLES.map((x) => x.name);
    const results = await Promise.all(pending.map((name) => run('virt', [name])));
    results.forEach((r, i) => {
      expect({ code: r.code, stderr: r.stderr.trim() }).toEqual({
        code: 2,
        stderr: `role ${pending[i] ?? ''} is not implemented yet`,
      });
    });
  });

  it('rejects an unknown role with a hint and a non-zero exit', async () => {
    const r = await run('virt', ['bogus']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("unknown command 'bogus'");
  });
});

describe('virtctl-ts', () => {
  it('prints its client version as virtctl does, without a cluster', async () => {
    const r = await run('virtctl-ts', ['version', '--client']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Client Version: version\.Info\{GitVersion:"\d+\.\d+\.\d+", GitCommit:"/);
  });

  it('refuses what it does not build, KubeVirt’s built-in ssh client, with exit 2 and the reason', async () => {
    const r = await run('virtctl-ts', ['ssh', '--local-ssh=false', 'vmi/x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/virtctl-ts ssh has no built-in SSH client/);
  });
});

describe('virt launcher convert', () => {
  it('prints the domain XML of a VMI file, with TCG when --emulation follows the subcommand', async () => {
    const vmi = join(root, 'lib/launcher/converter/testdata/kernel-boot-tcg.in.json');
    const r = await run('virt', ['launcher', 'convert', '--vmi', vmi, '--emulation']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^<domain type="qemu"/);
  });

  it.each([
    [['--vmi', '/nonexistent/vmi.json'], 'virt launcher convert: no such file: /nonexistent/vmi.json'],
  ])('answers bad input %j with a one-line error and exit 1', async (args, message) => {
    const r = await run('virt', ['launcher', 'convert', ...args]);
    expect({ code: r.code, stderr: r.stderr.trim() }).toEqual({ code: 1, stderr: message });
  });
});

describe('virt launcher convert with generated VMIs', () => {
  // A few cases of the converter's fuzz test, through the real binary (a fixed seed: the same cases each run).
  const SEED = 7;
  let dir = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kv-convert-cli-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the same domain XML as the converter for a valid one', async () => {
    const [generated] = generatedDomains(SEED, 1);
    const file = join(dir, 'valid.json');
    await writeFile(file, JSON.stringify(generated?.vmi));
    const r = await run('virt', ['launcher', 'convert', '--vmi', file, '--emulation']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toBe(generated?.xml);
  });

  it.each(
    fc.sample(brokenVmi(), { seed: SEED, numRuns: 4 }).map((b, i) => [i, b.path, b.how, b.value] as const),
  )(
    'refuses broken VMI %i (%s: %s) with exit 1 and one line naming the field',
    async (i, path, _how, value) => {
      const file = join(dir, `broken-${String(i)}.json`);
      await writeFile(file, JSON.stringify(value));
      const r = await run('virt', ['launcher', 'convert', '--vmi', file, '--emulation']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      const lines = r.stderr.split('\n').filter((l) => l !== '');
      expect(lines).toHaveLength(1);
      expect(lines[0]?.startsWith(`virt launcher convert: ${path}: `)).toBe(true);
    },
  );
});
