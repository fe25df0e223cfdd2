// The migration proxies' TLS files watched on real files: a rotated client pair and then a rotated server pair
// each reach the proxies merged into the rest of the material; a half-rotated pair leaves the old in use.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryLogger } from '../../kernel/log/log.ts';
import type { PemWatch } from '../../kernel/tls/pem-watch.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import { pemOf, type TestPem } from '../../../testenv/pki.ts';
import { migrationPki, migrationTls } from './testing/fixture.ts';
import { checkMigrationTls, type MigrationTls } from './tls.ts';
import { watchMigrationTls, type MigrationTlsFiles } from './tls-watch.ts';

let pki: Record<string, TestPem>;
let dir: string;
let watch: PemWatch | undefined;

beforeAll(async () => {
  pki = await migrationPki();
}, 30_000);
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kv-migration-tls-'));
});
afterEach(async () => {
  await watch?.close();
  watch = undefined;
  await rm(dir, { recursive: true, force: true });
});

const files = (): MigrationTlsFiles => ({
  ca: join(dir, 'ca.crt'),
  cert: join(dir, 'tls.crt'),
  key: join(dir, 'tls.key'),
  clientCert: join(dir, 'client.crt'),
  clientKey: join(dir, 'client.key'),
});

async function write(tls: MigrationTls): Promise<void> {
  const f = files();
  await writeFile(f.ca, tls.ca);
  await writeFile(f.cert, tls.cert);
  await writeFile(f.key, tls.key);
  await writeFile(f.clientCert, tls.clientCert);
  await writeFile(f.clientKey, tls.clientKey);
}

describe('watchMigrationTls', () => {
  it('hands a rotated client pair, then a rotated server pair, to the proxies with the rest kept', async () => {
    const first = migrationTls(pki);
    await write(first);
    const applied: MigrationTls[] = [];
    const { log, lines } = memoryLogger('test');
    watch = watchMigrationTls({
      files: files(),
      tls: first,
      apply: (t) => {
        // What the manager does: KV_ERR_CONFIG for material the proxies cannot use.
        applied.push(checkMigrationTls(t));
      },
      log,
      intervalMs: 20,
    });
    // A rotation caught halfway: a new client certificate beside the old key. Refused, the first stays.
    await writeFile(files().clientCert, pemOf(pki, 'other-name').cert);
    await waitFor(
      () => lines.some((l) => l['msg'] === 'TLS files changed but unusable; keeping the ones in use'),
      'the half-rotated client pair refused',
    );
    expect(applied).toEqual([]);

    const client = pemOf(pki, 'other-name');
    await writeFile(files().clientKey, client.key);
    await waitFor(() => applied.length === 1, 'the client pair handed on');
    expect(applied[0]?.clientCert.toString()).toBe(client.cert);
    expect(applied[0]?.cert.toString()).toBe(first.cert.toString());

    const server = migrationTls(pki, 'other-server');
    await writeFile(files().cert, server.cert);
    await writeFile(files().key, server.key);
    await waitFor(() => applied.length === 2, 'the server pair handed on');
    expect(applied[1]?.cert.toString()).toBe(server.cert.toString());
    expect(applied[1]?.clientCert.toString()).toBe(client.cert);
    expect(JSON.stringify(lines)).not.toMatch(/BEGIN/);
  });
});
