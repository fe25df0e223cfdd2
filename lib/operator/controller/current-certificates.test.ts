import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '../../kernel/kube/types.ts';
import type { CurrentCertificates } from '../generate/certs/plan.ts';
import { CA_BUNDLE_KEY, CONFIG_MAPS, SECRETS } from '../generate/names.ts';
import { currentCertificates } from './current-certificates.ts';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const secret = (name: string, data?: Record<string, string>): KubeObject => ({
  metadata: { name },
  ...(data !== undefined && { data }),
});
const pair = (name: string, cert: string, key: string): KubeObject =>
  secret(name, { 'tls.crt': b64(cert), 'tls.key': b64(key) });
const bundle = (text: string): KubeObject =>
  ({ metadata: { name: CONFIG_MAPS.caBundle }, data: { [CA_BUNDLE_KEY]: text } }) as KubeObject;

function read(secrets: readonly KubeObject[], configMaps: readonly KubeObject[] = []): CurrentCertificates {
  const byName = (list: readonly KubeObject[]) => (name: string) =>
    list.find((o) => o.metadata.name === name);
  return currentCertificates(byName(secrets), byName(configMaps));
}

describe('currentCertificates', () => {
  it.each<[string, KubeObject[], KubeObject[], CurrentCertificates]>([
    ['nothing installed', [], [], { leaves: {} }],
    [
      'the CA, a leaf and the bundle, decoded',
      [pair(SECRETS.ca, 'CA', 'CA-KEY'), pair(SECRETS.api, 'API', 'API-KEY')],
      [bundle('BUNDLE')],
      {
        ca: { cert: 'CA', key: 'CA-KEY' },
        bundle: 'BUNDLE',
        leaves: { api: { cert: 'API', key: 'API-KEY' } },
      },
    ],
    [
      'a Secret missing its key keeps what it has',
      [secret(SECRETS.controller, { 'tls.crt': b64('C') })],
      [],
      { leaves: { controller: { cert: 'C' } } },
    ],
    ['a Secret with no data is absent', [secret(SECRETS.operator)], [], { leaves: {} }],
    [
      'a ConfigMap without the bundle key is absent',
      [],
      [{ metadata: { name: CONFIG_MAPS.caBundle } }],
      { leaves: {} },
    ],
    [
      'every leaf by its Secret name',
      [
        pair(SECRETS.handlerServer, 'HS', 'k'),
        pair(SECRETS.handlerClient, 'HC', 'k'),
        pair(SECRETS.rewriterClient, 'RC', 'k'),
        pair(SECRETS.operator, 'OP', 'k'),
      ],
      [],
      {
        leaves: {
          handlerServer: { cert: 'HS', key: 'k' },
          handlerClient: { cert: 'HC', key: 'k' },
          rewriterClient: { cert: 'RC', key: 'k' },
          operator: { cert: 'OP', key: 'k' },
        },
      },
    ],
  ])('%s', (_, secrets, configMaps, want) => {
    expect(read(secrets, configMaps)).toEqual(want);
  });
});
