import { describe, expect, it } from '@jest/globals';
import { podNetworkStatuses, podPrimaryInterfaceName, type PodNetworkStatuses } from './multus-status.ts';

const annotated = (raw: string): Record<string, string> => ({ 'k8s.v1.cni.cncf.io/network-status': raw });

describe('podNetworkStatuses', () => {
  it.each<[string, Record<string, string> | undefined, PodNetworkStatuses]>([
    ['no annotations', undefined, { statuses: [] }],
    ['no network-status', { 'k8s.v1.cni.cncf.io/networks': '[]' }, { statuses: [] }],
    ['an empty annotation', annotated(''), { statuses: [] }],
    ['an empty list', annotated('[]'), { statuses: [] }],
    ['null', annotated('null'), { statuses: [] }],
    [
      'Multus’s report',
      annotated(
        '[{"name":"k8s-pod-network","interface":"eth0","ips":["10.244.196.146"],"default":true,"dns":{}},' +
          '{"name":"default/meganet","interface":"pod7e0055a6880","mac":"8a:37:d9:e7:0f:18","dns":{}}]',
      ),
      {
        statuses: [
          { interface: 'eth0', default: true },
          { interface: 'pod7e0055a6880', default: false },
        ],
      },
    ],
    [
      'the default network without an interface name',
      annotated('[{"name":"k8s-pod-network","ips":["10.244.196.146"],"default":true}]'),
      { statuses: [{ interface: '', default: true }] },
    ],
    ['not JSON', annotated('[{"interface":'), { statuses: [], problem: 'not JSON' }],
    ['an object', annotated('{"interface":"eth0","default":true}'), { statuses: [], problem: 'not a list' }],
    ['a string', annotated('"eth0"'), { statuses: [], problem: 'not a list' }],
    [
      'entries that are not objects',
      annotated('[1,"eth0",null,[{"interface":"net1"}],{"interface":"net2"}]'),
      { statuses: [{ interface: 'net2', default: false }], problem: 'an entry is not an object' },
    ],
    [
      'fields of the wrong type',
      annotated('[{"interface":7,"default":"true"},{"interface":["net1"],"default":1}]'),
      {
        statuses: [
          { interface: '', default: false },
          { interface: '', default: false },
        ],
      },
    ],
  ])('%s', (_n, annotations, want) => {
    expect(podNetworkStatuses(annotations)).toEqual(want);
  });

  it('names what it ignored without quoting it', () => {
    const secret = 'do-not-log-me';
    const { problem } = podNetworkStatuses(annotated(`[{"interface":"${secret}"`));
    expect(problem).toBe('not JSON');
  });
});

describe('podPrimaryInterfaceName', () => {
  it.each<[string, { interface: string; default: boolean }[], string]>([
    ['none reported', [], ''],
    [
      'the default one',
      [
        { interface: 'net1', default: false },
        { interface: 'custom-iface', default: true },
      ],
      'custom-iface',
    ],
    [
      'a default one without a name is passed over',
      [
        { interface: '', default: true },
        { interface: 'eth0', default: true },
      ],
      'eth0',
    ],
    ['no default one', [{ interface: 'eth0', default: false }], ''],
  ])('%s', (_n, statuses, want) => {
    expect(podPrimaryInterfaceName(statuses)).toBe(want);
  });
});
