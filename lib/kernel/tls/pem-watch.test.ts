// The PEM watcher against real files in a temp dir: rewritten in place, swapped in through a `..data` symlink
// as the kubelet does for a Secret volume, broken, and read on the default period with a fake clock.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../clock.ts';
import { memoryLogger } from '../log/log.ts';
import { waitFor } from '../testing/wait.ts';
import {
  checkPemSet,
  DEFAULT_PEM_POLL_MS,
  pemDigest,
  watchPemFiles,
  watchCaFile,
  type PemSet,
  type PemWatch,
} from './pem-watch.ts';
import { makeTestPki, pemOf, type TestPem } from '../../../testenv/pki.ts';

let pki: Record<string, TestPem>;
let dir: string;
let watch: PemWatch | undefined;

beforeAll(async () => {
  pki = await makeTestPki([
    { name: 'ca', cn: 'watch-ca', ca: true },
    { name: 'one', cn: 'one', issuer: 'ca', usage: 'serverAuth' },
    { name: 'two', cn: 'two', issuer: 'ca', usage: 'serverAuth' },
    { name: 'three', cn: 'three', issuer: 'ca', usage: 'serverAuth' },
  ]);
}, 30_000);
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kv-pem-watch-'));
});
afterEach(async () => {
  await watch?.close();
  watch = undefined;
  await rm(dir, { recursive: true, force: true });
});

const files = (): { cert: string; key: string; ca: string } => ({
  cert: join(dir, 'tls.crt'),
  key: join(dir, 'tls.key'),
  ca: join(dir, 'ca.crt'),
});

async function write(at: string, pem: TestPem): Promise<void> {
  await writeFile(join(at, 'tls.crt'), pem.cert);
  await writeFile(join(at, 'tls.key'), pem.key);
  await writeFile(join(at, 'ca.crt'), pemOf(pki, 'ca').cert);
}

function start(o: { clock?: FakeClock; intervalMs?: number } = {}) {
  const applied: PemSet[] = [];
  const { log, lines } = memoryLogger('test');
  const one = pemOf(pki, 'one');
  watch = watchPemFiles({
    files: files(),
    current: { ...one, ca: Buffer.from(pemOf(pki, 'ca').cert) },
    apply: (s) => {
      if (s.cert.includes('refuse me')) throw new Error('the server refused it');
      applied.push(s);
    },
    log,
    ...(o.clock !== undefined && { clock: o.clock }),
    ...(o.intervalMs !== undefined && { intervalMs: o.intervalMs }),
  });
  return { applied, lines };
}

describe('watchPemFiles', () => {
  it('hands on a pair rewritten in place once, and nothing while the files stay as they are', async () => {
    await write(dir, pemOf(pki, 'one'));
    const { applied, lines } = start({ intervalMs: 20 });
    await new Promise((r) => setTimeout(r, 150));
    expect(applied).toEqual([]);
    await write(dir, pemOf(pki, 'two'));
    await waitFor(() => applied.length === 1, 'the rewritten pair handed on');
    expect(applied[0]).toEqual({ ...pemOf(pki, 'two'), ca: pemOf(pki, 'ca').cert });
    await new Promise((r) => setTimeout(r, 150));
    expect(applied.length).toBe(1);
    expect(lines.filter((l) => l['msg'] === 'TLS files reloaded')).toEqual([
      expect.objectContaining({ level: 'info', files: Object.values(files()) }),
    ]);
  });

  it('sees a new set renamed into place behind the ..data symlink, as a Secret volume is updated', async () => {
    await mkdir(join(dir, '..v1'));
    await write(join(dir, '..v1'), pemOf(pki, 'one'));
    await symlink('..v1', join(dir, '..data'));
    for (const f of ['tls.crt', 'tls.key', 'ca.crt']) await symlink(join('..data', f), join(dir, f));
    const { applied } = start({ intervalMs: 20 });
    await mkdir(join(dir, '..v2'));
    await write(join(dir, '..v2'), pemOf(pki, 'two'));
    await symlink('..v2', join(dir, '..data_tmp'));
    await rename(join(dir, '..data_tmp'), join(dir, '..data'));
    await waitFor(() => applied.length === 1, 'the swapped-in pair handed on');
    expect(applied[0]?.cert).toBe(pemOf(pki, 'two').cert);
  });

  it('keeps the set in use when the new one is broken, says why once without content, then takes a fixed one', async () => {
    await write(dir, pemOf(pki, 'one'));
    const { applied, lines } = start({ intervalMs: 20 });
    // A rotation caught halfway: the new certificate beside the old key.
    await writeFile(join(dir, 'tls.crt'), pemOf(pki, 'two').cert);
    const refused = (): Record<string, unknown>[] =>
      lines.filter((l) => l['msg'] === 'TLS files changed but unusable; keeping the ones in use');
    await waitFor(() => refused().length === 1, 'the broken pair refused');
    await new Promise((r) => setTimeout(r, 150));
    expect(refused()).toEqual([
      expect.objectContaining({
        level: 'warning',
        reason: expect.stringContaining('do not belong together'),
      }),
    ]);
    const refusedFor = (text: string): Promise<unknown> =>
      waitFor(() => refused().some((l) => String(l['reason']).includes(text)), `a refusal saying ${text}`);
    await writeFile(join(dir, 'tls.key'), 'not a key');
    await refusedFor(`${files().key}: not a PEM private key`);
    await rm(join(dir, 'ca.crt'));
    await refusedFor(`${files().ca}: cannot read it (ENOENT`);
    // Each write is a state of its own; the last one is what the server refuses.
    await writeFile(join(dir, 'ca.crt'), pemOf(pki, 'ca').cert);
    await writeFile(join(dir, 'tls.crt'), `${pemOf(pki, 'three').cert}# refuse me\n`);
    await writeFile(join(dir, 'tls.key'), pemOf(pki, 'three').key);
    await refusedFor('the server refused it');
    expect(applied).toEqual([]);
    await write(dir, pemOf(pki, 'two'));
    await waitFor(() => applied.length === 1, 'the fixed pair handed on');
    expect(applied[0]?.cert).toBe(pemOf(pki, 'two').cert);
    expect(JSON.stringify(lines)).not.toMatch(/BEGIN|not a key/);
  });

  it(`reads the files every ${DEFAULT_PEM_POLL_MS / 1000} s by default, within a minute`, async () => {
    expect(DEFAULT_PEM_POLL_MS).toBeLessThanOrEqual(60_000);
    await write(dir, pemOf(pki, 'one'));
    const clock = new FakeClock();
    const { applied } = start({ clock });
    await write(dir, pemOf(pki, 'two'));
    clock.advance(DEFAULT_PEM_POLL_MS - 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(applied).toEqual([]);
    clock.advance(1);
    await waitFor(() => applied.length === 1, 'the pair read on the default period');
  });
});

describe('watchCaFile', () => {
  it('hands on a CA bundle that changed, and keeps the one in use when the new one is no certificate', async () => {
    const file = join(dir, 'ca.crt');
    await writeFile(file, pemOf(pki, 'ca').cert);
    const applied: string[] = [];
    const { log, lines } = memoryLogger('test');
    watch = watchCaFile({
      file,
      current: pemOf(pki, 'ca').cert,
      apply: (ca) => applied.push(ca),
      log,
      intervalMs: 20,
    });
    await writeFile(file, 'half a bundle');
    const refused = 'TLS files changed but unusable; keeping the ones in use';
    await waitFor(() => lines.some((l) => l['msg'] === refused), 'the broken bundle refused');
    expect(lines.find((l) => l['msg'] === refused)).toMatchObject({
      files: [file],
      reason: `${file}: not a PEM certificate (no CERTIFICATE block)`,
    });
    const bundle = pemOf(pki, 'ca').cert + pemOf(pki, 'one').cert;
    await writeFile(file, bundle);
    await waitFor(() => applied.length === 1, 'the new bundle handed on');
    expect(applied).toEqual([bundle]);
  });
});

describe('the pure parts', () => {
  it('digests text and bytes alike, and each part apart', () => {
    const one = pemOf(pki, 'one');
    expect(pemDigest({ cert: Buffer.from(one.cert), key: one.key })).toBe(pemDigest(one));
    expect(pemDigest({ cert: one.cert + one.key, key: '' })).not.toBe(pemDigest(one));
  });

  it.each<[string, (s: PemSet) => PemSet, RegExp]>([
    ['a certificate that is not one', (s) => ({ ...s, cert: 'x' }), /^\/s\/tls\.crt: not a PEM certificate/],
    ['a key that is not one', (s) => ({ ...s, key: 'x' }), /^\/s\/tls\.key: not a PEM private key/],
    [
      'the key of another certificate',
      (s) => ({ ...s, key: pemOf(pki, 'two').key }),
      /^\/s\/tls\.crt and \/s\/tls\.key: do not belong together/,
    ],
    ['a CA that is not one', (s) => ({ ...s, ca: 'x' }), /^\/s\/ca\.crt: not a PEM certificate/],
  ])('refuses %s, naming the file', (_name, change, message) => {
    const good = { ...pemOf(pki, 'one'), ca: pemOf(pki, 'ca').cert };
    const files = { cert: '/s/tls.crt', key: '/s/tls.key', ca: '/s/ca.crt' };
    expect(() => {
      checkPemSet(change(good), files);
    }).toThrow(message);
    expect(() => {
      checkPemSet(good, files);
    }).not.toThrow();
  });
});
