import { describe, it } from '@jest/globals';
import { checkSpecRow, inv, ns, req, type Row } from './testing/fixtures.ts';

const SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('validateVmiSpec: probes and DNS', () => {
  it.each<Row>([
    ['a TCP readiness probe', (s) => (s.readinessProbe = { tcpSocket: { port: 22 } }), []],
    [
      'a probe of two types',
      (s) => (s.readinessProbe = { tcpSocket: { port: 22 }, exec: { command: ['true'] } }),
      [inv('spec.readinessProbe', 'spec.readinessProbe must have exactly one probe type set')],
    ],
    [
      'a probe of no type',
      (s) => (s.livenessProbe = { periodSeconds: 10 }),
      [
        req(
          'spec.livenessProbe',
          'either spec.livenessProbe.tcpSocket, spec.livenessProbe.exec or spec.livenessProbe.httpGet must be set if a spec.livenessProbe is specified',
        ),
      ],
    ],
    [
      'HTTP and TCP probes without a pod network',
      (s) => {
        s.domain.devices.interfaces = [{ name: 'default', bridge: {} }];
        s.networks = [{ name: 'default', multus: { networkName: 'nad' } }];
        s.readinessProbe = { httpGet: { port: 80 } };
        s.livenessProbe = { tcpSocket: { port: 22 } };
      },
      [
        inv(
          'spec.readinessProbe.httpGet',
          'spec.readinessProbe.httpGet is only allowed if the Pod Network is attached',
        ),
        inv(
          'spec.livenessProbe.tcpSocket',
          'spec.livenessProbe.tcpSocket is only allowed if the Pod Network is attached',
        ),
      ],
    ],
    [
      'an unknown DNS policy',
      (s) => (s.dnsPolicy = 'Host'),
      [
        ns(
          'spec.dnsPolicy',
          'DNSPolicy: Host is not supported, valid values: [ClusterFirstWithHostNet ClusterFirst Default None ]',
        ),
      ],
    ],
    [
      'DNS policy None without dnsConfig',
      (s) => (s.dnsPolicy = 'None'),
      [req('spec.dnsConfig', 'must provide `dnsConfig` when `dnsPolicy` is None')],
    ],
    [
      'DNS policy None without nameservers',
      (s) => {
        s.dnsPolicy = 'None';
        s.dnsConfig = { searches: ['example.com'] };
      },
      [req('nameservers', 'must provide at least one DNS nameserver when `dnsPolicy` is None')],
    ],
    [
      'four nameservers, one of them no IP',
      (s) => (s.dnsConfig = { nameservers: ['10.0.0.1', '10.0.0.2', 'fd00::1', 'dns.local'] }),
      [
        inv('nameservers', 'must not have more than 3 nameservers: [10.0.0.1 10.0.0.2 fd00::1 dns.local]'),
        inv('nameservers', 'must be valid IP address: dns.local'),
      ],
    ],
    [
      'seven search domains, one invalid',
      (s) => (s.dnsConfig = { searches: ['a.com', 'b.com', 'c.com', 'd.com', 'e.com', 'f.com', 'G.com'] }),
      [inv('searchDomains', 'must not have more than 6 search paths'), inv('searchDomains', SUBDOMAIN_ERR)],
    ],
    [
      'a search list over 256 characters',
      (s) => (s.dnsConfig = { searches: [`${'a'.repeat(200)}.com`, `${'b'.repeat(60)}.com`] }),
      [inv('searchDomains', 'must not have more than 256 characters (including spaces) in the search list')],
    ],
    [
      'a DNS option without a name',
      (s) => (s.dnsConfig = { options: [{ name: 'ndots', value: '2' }, { value: '1' }] }),
      [inv('options', 'Option.Name must not be empty')],
    ],
  ])('%s', (_name, patch, expected) => {
    checkSpecRow(patch, expected);
  });
});
