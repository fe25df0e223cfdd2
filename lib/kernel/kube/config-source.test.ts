import { describe, expect, it } from '@jest/globals';
import { KvError } from '../errors/errors.ts';
import {
  chooseConfigSource,
  SERVICE_ACCOUNT_DIR,
  type ConfigSource,
  type SourceInput,
} from './config-source.ts';

const SA_TOKEN = `${SERVICE_ACCOUNT_DIR}/token`;
const IN_POD = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };

function input(over: Partial<SourceInput> & { files?: string[] }): SourceInput {
  const files = new Set(over.files ?? []);
  return { env: {}, exists: (p) => files.has(p), ...over };
}

describe('chooseConfigSource', () => {
  it.each<[string, Partial<SourceInput> & { files?: string[] }, ConfigSource]>([
    [
      'the flag beats everything',
      {
        kubeconfig: '/flag',
        env: { ...IN_POD, KUBECONFIG: '/env', HOME: '/h' },
        files: ['/env', SA_TOKEN, '/h/.kube/config'],
      },
      { kind: 'kubeconfig', files: ['/flag'], origin: 'flag' },
    ],
    [
      'KUBECONFIG beats the service account',
      { env: { ...IN_POD, KUBECONFIG: '/a:/b' }, files: ['/a', '/b', SA_TOKEN] },
      { kind: 'kubeconfig', files: ['/a', '/b'], origin: 'env' },
    ],
    [
      'KUBECONFIG entries that do not exist are skipped',
      { env: { KUBECONFIG: '/missing::/b' }, files: ['/b'] },
      { kind: 'kubeconfig', files: ['/b'], origin: 'env' },
    ],
    [
      'the service account beats ~/.kube/config',
      { env: { ...IN_POD, HOME: '/h' }, files: [SA_TOKEN, '/h/.kube/config'] },
      { kind: 'in-cluster', host: '10.96.0.1', port: '443', serviceAccountDir: SERVICE_ACCOUNT_DIR },
    ],
    [
      'in-cluster port defaults to 443',
      { env: { KUBERNETES_SERVICE_HOST: 'h' }, files: ['/sa/token'], serviceAccountDir: '/sa' },
      { kind: 'in-cluster', host: 'h', port: '443', serviceAccountDir: '/sa' },
    ],
    [
      'no token file: not in-cluster, falls to ~/.kube/config',
      { env: { ...IN_POD, HOME: '/h' }, files: ['/h/.kube/config'] },
      { kind: 'kubeconfig', files: ['/h/.kube/config'], origin: 'home' },
    ],
    [
      'inCluster false skips the service account',
      { inCluster: false, env: { ...IN_POD, HOME: '/h' }, files: [SA_TOKEN, '/h/.kube/config'] },
      { kind: 'kubeconfig', files: ['/h/.kube/config'], origin: 'home' },
    ],
    [
      'inCluster true ignores kubeconfig sources',
      { inCluster: true, kubeconfig: '/flag', env: { ...IN_POD, KUBECONFIG: '/a' }, files: ['/a', SA_TOKEN] },
      { kind: 'in-cluster', host: '10.96.0.1', port: '443', serviceAccountDir: SERVICE_ACCOUNT_DIR },
    ],
  ])('%s', (_name, over, want) => {
    expect(chooseConfigSource(input(over))).toEqual(want);
  });

  it.each<[string, Partial<SourceInput> & { files?: string[] }, RegExp]>([
    ['nothing at all', { env: { HOME: '/h' } }, /pass --kubeconfig.*KUBECONFIG.*\/h\/\.kube\/config/],
    [
      'KUBECONFIG names only missing files',
      { env: { KUBECONFIG: '/x:/y' } },
      /none of the files in KUBECONFIG.*\/x:\/y/,
    ],
    [
      'inCluster true without the env',
      { inCluster: true, files: [SA_TOKEN] },
      /KUBERNETES_SERVICE_HOST is not set/,
    ],
    ['inCluster true without a token', { inCluster: true, env: IN_POD }, /token .* does not exist/],
  ])('fails clearly: %s', (_name, over, message) => {
    let err: unknown;
    try {
      chooseConfigSource(input(over));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(KvError);
    expect((err as KvError).code).toBe('KV_ERR_CONFIG');
    expect((err as KvError).message).toMatch(message);
  });
});
