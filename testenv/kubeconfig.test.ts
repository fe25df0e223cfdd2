import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { readKubeconfig, writeAdminKubeconfig } from './kubeconfig.ts';

const dir = mkdtempSync(join(tmpdir(), 'kv-kubeconfig-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const write = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('kubeconfig', () => {
  it('reads back the embedded admin credentials it wrote', async () => {
    const [ca, cert, key] = [
      write('ca.pem', 'CA PEM'),
      write('c.pem', 'CERT PEM'),
      write('k.pem', 'KEY PEM'),
    ];
    const path = join(dir, 'admin.kubeconfig');
    await writeAdminKubeconfig(path, { server: 'https://127.0.0.1:6443', ca, cert, key });
    expect(await readKubeconfig(path)).toEqual({
      server: 'https://127.0.0.1:6443',
      creds: { ca: 'CA PEM', cert: 'CERT PEM', key: 'KEY PEM' },
    });
  });

  it('follows the current context, relative file paths and tokens', async () => {
    write('other-ca.pem', 'OTHER CA');
    const doc = {
      'current-context': 'b',
      contexts: [
        { name: 'a', context: { cluster: 'ca', user: 'ua' } },
        { name: 'b', context: { cluster: 'cb', user: 'ub' } },
      ],
      clusters: [
        { name: 'ca', cluster: { server: 'https://a' } },
        { name: 'cb', cluster: { server: 'https://b:443/', 'certificate-authority': 'other-ca.pem' } },
      ],
      users: [
        { name: 'ua', user: {} },
        { name: 'ub', user: { token: 'secret' } },
      ],
    };
    const path = write('multi.kubeconfig', stringify(doc));
    expect(await readKubeconfig(path)).toEqual({
      server: 'https://b:443',
      creds: { ca: 'OTHER CA', token: 'secret' },
    });
  });

  it('fails clearly when the current context has no cluster', async () => {
    const path = write('empty.kubeconfig', stringify({ 'current-context': 'x', contexts: [] }));
    await expect(readKubeconfig(path)).rejects.toMatchObject({ code: 'KV_ERR_CONFIG' });
  });
});
