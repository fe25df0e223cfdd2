// The certificates of `./dev run`'s roles, made in a temp dir: the api's client certificate for the
// handlers carries KubeVirt's client name, and a set made before that is mended from the same CA.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CLIENT_COMMON_NAME } from '../../lib/handler/rest/index.ts';
import { issue } from '../../testenv/pki.ts';
import { ensureVirtCerts, virtCertPaths } from './virt-pki.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kv-virt-pki-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cert = async (file: string): Promise<X509Certificate> => new X509Certificate(await readFile(file));

describe('ensureVirtCerts', () => {
  it('gives the api’s handler client certificate KubeVirt’s client name, signed by the stack’s CA', async () => {
    const c = await ensureVirtCerts(dir);
    const client = await cert(c.apiHandlerClient.cert);
    expect(client.subject).toBe(`CN=${DEFAULT_CLIENT_COMMON_NAME}`);
    expect(client.checkIssued(await cert(c.ca.cert))).toBe(true);
  }, 30_000);

  it('issues a leaf with an old subject again from the same CA and leaves the rest as they are', async () => {
    const c = virtCertPaths(dir);
    await ensureVirtCerts(dir);
    await issue(c.apiHandlerClient, { cn: 'virt-api', usage: 'clientAuth' }, c.ca);
    const before = await Promise.all([c.ca.cert, c.apiServing.cert].map((f) => readFile(f, 'utf8')));
    await ensureVirtCerts(dir);
    const client = await cert(c.apiHandlerClient.cert);
    expect(client.subject).toBe(`CN=${DEFAULT_CLIENT_COMMON_NAME}`);
    expect(client.checkIssued(await cert(c.ca.cert))).toBe(true);
    expect(client.checkPrivateKey(createPrivateKey(await readFile(c.apiHandlerClient.key)))).toBe(true);
    expect(await Promise.all([c.ca.cert, c.apiServing.cert].map((f) => readFile(f, 'utf8')))).toEqual(before);
  }, 30_000);
});
