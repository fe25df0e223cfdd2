import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Interface, Network } from '../../kubevirt/index.ts';
import { withInterface, withSpec } from '../../kubevirt/testing/builders.ts';
import { testVmi } from '../converter/testing/vmi.ts';
import { podLinkCandidates, readPodLinks, type PodLinkCandidates } from './pod-links.ts';

const pod: Network = { name: 'default', pod: {} };
const multus = (name: string): Network => ({ name, multus: { networkName: `${name}-net` } });

describe('podLinkCandidates', () => {
  // The handler says `plug` is attached by tap; `other` is left to its plugin's sidecar.
  const attachment = new Map([
    ['plug', 'tap'],
    ['other', 'sidecar'],
  ]);

  it.each<[string, Interface, Network, PodLinkCandidates[]]>([
    [
      'masquerade on the pod network: eth0',
      { name: 'default', masquerade: {} },
      pod,
      [{ name: 'default', links: ['eth0'] }],
    ],
    [
      'bridge on Multus: the hashed name, then the ordinal one',
      { name: 'sec', bridge: {} },
      multus('sec'),
      [{ name: 'sec', links: ['podadd93534eeb', 'net1'] }],
    ],
    [
      'a plugin attached by tap',
      { name: 'plug', binding: { name: 'p' } },
      multus('plug'),
      [{ name: 'plug', links: ['pod0daf0c9ca37', 'net1'] }],
    ],
    ['a plugin not attached by tap has none', { name: 'other', binding: { name: 'p' } }, pod, []],
    ['nor has SR-IOV', { name: 'sec', sriov: {} }, multus('sec'), []],
    ['nor an absent interface', { name: 'default', bridge: {}, state: 'absent' }, pod, []],
    ['nor one on a network that is neither pod nor Multus', { name: 'x', bridge: {} }, { name: 'x' }, []],
  ])('%s', (_, iface, network, expected) => {
    expect(podLinkCandidates(testVmi(withInterface(iface, network)), attachment)).toEqual(expected);
  });

  it("leaves a plugin's interface to its sidecar when the handler sent no attachments", () => {
    const vmi = testVmi(withInterface({ name: 'plug', binding: { name: 'p' } }, pod));
    expect(podLinkCandidates(vmi, undefined)).toEqual([]);
  });

  it('takes the pod interface the VMI status reports for the default network', () => {
    const vmi = testVmi(withInterface({ name: 'default', masquerade: {} }, pod));
    vmi.status = { interfaces: [{ name: 'default', podInterfaceName: 'eth7' }] };
    expect(podLinkCandidates(vmi, undefined)).toEqual([{ name: 'default', links: ['eth7', 'eth0'] }]);
  });

  it('leaves out an interface without a network', () => {
    const vmi = testVmi(withSpec((s) => (s.domain.devices.interfaces = [{ name: 'lost', bridge: {} }])));
    expect(podLinkCandidates(vmi, undefined)).toEqual([]);
  });
});

describe('readPodLinks', () => {
  let root = '';
  const link = (name: string, mtu: string, address?: string): void => {
    mkdirSync(join(root, 'sys/class/net', name), { recursive: true });
    writeFileSync(join(root, 'sys/class/net', name, 'mtu'), mtu);
    if (address !== undefined) writeFileSync(join(root, 'sys/class/net', name, 'address'), address);
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'kv-mtu-'));
    link('eth0', '1450\n', 'AA:BB:cc:dd:ee:ff\n');
    link('net2', '9000\n', '00:00:00:00:00:00:00:00\n');
    link('garbled', 'lots\n');
    mkdirSync(join(root, 'sys/class/net/odd/mtu'), { recursive: true });
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('reads the first candidate link that exists and names the interfaces with none', async () => {
    const got = await readPodLinks(root, [
      { name: 'default', links: ['eth0'] },
      { name: 'old', links: ['pod0123456789a', 'net2'] },
      { name: 'gone', links: ['pod1111111111a', 'net3'] },
    ]);
    expect(got).toEqual({
      byInterface: new Map([
        ['default', { mtu: 1450, mac: 'aa:bb:cc:dd:ee:ff' }],
        ['old', { mtu: 9000 }],
      ]),
      missing: ['gone'],
    });
  });

  it('never takes a link name that is a path', async () => {
    const got = await readPodLinks(root, [{ name: 'default', links: ['../net/mtu', '..'] }]);
    expect(got).toEqual({ byInterface: new Map(), missing: ['default'] });
  });

  it('fails on an MTU file that is not a number', async () => {
    await expect(readPodLinks(root, [{ name: 'x', links: ['garbled'] }])).rejects.toMatchObject({
      code: 'KV_ERR_DECODE',
    });
  });

  it('fails on an MTU file it cannot read', async () => {
    await expect(readPodLinks(root, [{ name: 'x', links: ['odd'] }])).rejects.toMatchObject({
      code: 'KV_ERR_LAUNCHER',
    });
  });
});
