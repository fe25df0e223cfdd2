import { describe, expect, it } from '@jest/globals';
import { findNamed, mergeKubeconfigs, parseKubeconfig, type Kubeconfig } from './kubeconfig-file.ts';

const SECRET = 'kv-secret-7c1d';

/** JSON is valid YAML: each case writes its document as an object. */
const parseDoc = (doc: unknown, dir = '/cfg'): Kubeconfig => parseKubeconfig(JSON.stringify(doc), dir);

function parseError(doc: unknown): string {
  try {
    parseDoc(doc);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected parseKubeconfig to fail');
}

describe('parseKubeconfig', () => {
  it('reads every field it knows, resolving relative files against the kubeconfig directory', () => {
    const kc = parseDoc(
      {
        clusters: [
          {
            name: 'c',
            cluster: {
              server: 'https://h:6443/',
              'certificate-authority': 'pki/ca.crt',
              'insecure-skip-tls-verify': false,
              'tls-server-name': 'api.local',
              'proxy-url': 'http://proxy:3128',
            },
          },
          { name: 'd', cluster: { server: 'https://d:1', 'certificate-authority-data': 'Q0E=' } },
        ],
        users: [
          {
            name: 'u',
            user: {
              token: 't',
              'token-file': 'tok',
              'client-certificate': '/abs/cert.pem',
              'client-key': '../key.pem',
            },
          },
          { name: 'v', user: { 'client-certificate-data': 'Q0VSVA==', 'client-key-data': 'S0VZ' } },
          { name: 'bare' },
        ],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'ns' } }],
        'current-context': 'x',
      },
      '/home/me/.kube',
    );
    expect(kc).toEqual({
      clusters: [
        {
          name: 'c',
          server: 'https://h:6443',
          caFile: '/home/me/.kube/pki/ca.crt',
          insecureSkipTLSVerify: false,
          tlsServerName: 'api.local',
          proxyUrl: 'http://proxy:3128',
        },
        { name: 'd', server: 'https://d:1', caData: 'Q0E=', insecureSkipTLSVerify: false },
      ],
      users: [
        {
          name: 'u',
          token: 't',
          tokenFile: '/home/me/.kube/tok',
          certFile: '/abs/cert.pem',
          keyFile: '/home/me/key.pem',
        },
        { name: 'v', certData: 'Q0VSVA==', keyData: 'S0VZ' },
        { name: 'bare' },
      ],
      contexts: [{ name: 'x', cluster: 'c', user: 'u', namespace: 'ns' }],
      currentContext: 'x',
    });
  });

  it.each<[string, unknown]>([
    ['an empty file', null],
    ['a bare word', SECRET],
    ['a list', [1, 2]],
    ['a mapping without entries', { apiVersion: 'v1', kind: 'Config', clusters: null }],
  ])('%s holds nothing', (_name, doc) => {
    expect(parseDoc(doc)).toEqual({ clusters: [], users: [], contexts: [], currentContext: undefined });
  });

  it.each<[string, Record<string, unknown>, string | undefined]>([
    ['exec', { exec: { command: 'aws' } }, 'exec credential plugins'],
    ['a username', { username: 'admin' }, 'basic auth (username/password)'],
    ['a password', { password: SECRET }, 'basic auth (username/password)'],
    ['impersonation', { as: 'root' }, 'impersonation (as)'],
    ['an auth-provider', { 'auth-provider': { name: 'oidc' } }, 'an auth-provider'],
    [
      'an auth-provider holding a token file',
      { 'auth-provider': { config: { tokenFile: '/t' } } },
      'an auth-provider',
    ],
    ['an empty exec', { exec: null, username: '' }, undefined],
  ])('marks %s as unsupported', (_name, user, unsupported) => {
    const kc = parseDoc({ users: [{ name: 'u', user }] });
    expect(kc.users[0]?.unsupported).toBe(unsupported);
  });

  it.each<[string, unknown, string]>([
    ['clusters not a list', { clusters: { c: {} } }, 'clusters must be a list, not a mapping'],
    ['a cluster entry not a mapping', { clusters: ['c'] }, 'clusters[0] must be a mapping, not a string'],
    [
      'a cluster without a name',
      { clusters: [{ cluster: { server: 'https://h' } }] },
      'clusters[0].name is missing',
    ],
    ['a cluster without a body', { clusters: [{ name: 'c' }] }, 'clusters[0].cluster is missing'],
    [
      'a cluster without a server',
      { clusters: [{ name: 'c', cluster: {} }] },
      'clusters[0].cluster.server is missing',
    ],
    [
      'a numeric server',
      { clusters: [{ name: 'c', cluster: { server: 6443 } }] },
      'clusters[0].cluster.server must be a string, not a number',
    ],
    [
      'a string insecure-skip-tls-verify',
      { clusters: [{ name: 'c', cluster: { server: 'https://h', 'insecure-skip-tls-verify': 'true' } }] },
      'clusters[0].cluster.insecure-skip-tls-verify must be a boolean, not a string',
    ],
    [
      'a list as certificate-authority-data',
      { clusters: [{ name: 'c', cluster: { server: 'https://h', 'certificate-authority-data': [SECRET] } }] },
      'clusters[0].cluster.certificate-authority-data must be a string, not a list',
    ],
    [
      'a numeric user name',
      { users: [{ name: 7, user: {} }] },
      'users[0].name must be a string, not a number',
    ],
    [
      'a user body not a mapping',
      { users: [{ name: 'u', user: SECRET }] },
      'users[0].user must be a mapping, not a string',
    ],
    [
      'a numeric token',
      { users: [{ name: 'u', user: { token: 12345 } }] },
      'users[0].user.token must be a string, not a number',
    ],
    [
      'a mapping as client-key-data',
      { users: [{ name: 'u', user: { 'client-key-data': { k: SECRET } } }] },
      'users[0].user.client-key-data must be a string, not a mapping',
    ],
    ['a context without a body', { contexts: [{ name: 'x' }] }, 'contexts[0].context is missing'],
    [
      'a context without a cluster',
      { contexts: [{ name: 'x', context: { user: 'u' } }] },
      'contexts[0].context.cluster is missing',
    ],
    [
      'a boolean namespace',
      { contexts: [{ name: 'x', context: { cluster: 'c', namespace: true } }] },
      'contexts[0].context.namespace must be a string, not a boolean',
    ],
    ['a numeric current-context', { 'current-context': 1 }, 'current-context must be a string, not a number'],
  ])('refuses %s, naming the field and never its value', (_name, doc, message) => {
    const got = parseError(doc);
    expect(got).toBe(message);
    expect(got).not.toContain(SECRET);
  });

  it('throws the yaml package error for text that is not YAML', () => {
    expect(() => parseKubeconfig('a: [\n', '/')).toThrow(expect.objectContaining({ name: 'YAMLParseError' }));
  });
});

describe('mergeKubeconfigs and findNamed', () => {
  const first = parseDoc({
    clusters: [{ name: 'shared', cluster: { server: 'https://first' } }],
    users: [{ name: 'u', user: { token: 'one' } }],
    contexts: [
      { name: 'main', context: { cluster: 'shared', user: 'u' } },
      { name: 'main', context: { cluster: 'other' } },
    ],
  });
  const second = parseDoc({
    clusters: [
      { name: 'shared', cluster: { server: 'https://second' } },
      { name: 'other', cluster: { server: 'https://other' } },
    ],
    users: [{ name: 'u', user: { token: 'two' } }],
    contexts: [{ name: 'alt', context: { cluster: 'other', user: 'u' } }],
    'current-context': 'alt',
  });

  it('keeps the first definition of a name and the first current-context', () => {
    const kc = mergeKubeconfigs(first, second);
    expect(kc.clusters.map((c) => c.server)).toEqual(['https://first', 'https://other']);
    expect(kc.users.map((u) => u.token)).toEqual(['one']);
    expect(kc.contexts.map((c) => c.name)).toEqual(['main', 'main', 'alt']);
    expect(kc.currentContext).toBe('alt');
    expect(mergeKubeconfigs({ ...first, currentContext: 'main' }, second).currentContext).toBe('main');
  });

  it('finds the first entry of a name, and nothing for no name', () => {
    expect(findNamed(first.contexts, 'main')).toEqual({ name: 'main', cluster: 'shared', user: 'u' });
    expect(findNamed(first.contexts, 'nope')).toBeUndefined();
    expect(findNamed(first.contexts, undefined)).toBeUndefined();
  });
});
