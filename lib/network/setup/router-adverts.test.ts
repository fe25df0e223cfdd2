import { describe, expect, it } from '@jest/globals';
import { radvdConfig } from './router-adverts.ts';

const pod = { name: 'default', pod: {} };

describe('radvdConfig', () => {
  it('advertises the bridge as default router, the VM subnet on-link (no SLAAC), DHCPv6 and the MTU', () => {
    expect(radvdConfig([{ bridge: 'k6t-eth0', network: pod, networkIndex: 0, mtu: 1450 }])).toBe(
      [
        'interface k6t-eth0',
        '{',
        '\tAdvSendAdvert on;',
        '\tMinRtrAdvInterval 30;',
        '\tMaxRtrAdvInterval 120;',
        '\tAdvDefaultLifetime 1800;',
        '\tAdvManagedFlag on;',
        '\tAdvOtherConfigFlag on;',
        '\tAdvLinkMTU 1450;',
        '\tprefix fd10:0:2::/120',
        '\t{',
        '\t\tAdvOnLink on;',
        '\t\tAdvAutonomous off;',
        '\t};',
        '};',
        '',
      ].join('\n'),
    );
  });

  it("takes the network's vmIPv6NetworkCIDR", () => {
    const network = { name: 'default', pod: { vmIPv6NetworkCIDR: 'fd20:1:2:3::1/64' } };
    expect(radvdConfig([{ bridge: 'k6t-eth0', network, networkIndex: 0, mtu: 9000 }])).toContain(
      '\tprefix fd20:1:2:3::/64\n',
    );
  });

  it('is empty without bridges', () => {
    expect(radvdConfig([])).toBe('');
  });

  it.each([
    ['a bridge name with a space', { bridge: 'k6t eth0', mtu: 1500 }, /not a link name/],
    ['an MTU below 1280', { bridge: 'k6t-eth0', mtu: 1200 }, /below IPv6's 1280/],
  ])('refuses %s', (_, b, message) => {
    expect(() => radvdConfig([{ ...b, network: pod, networkIndex: 0 }])).toThrow(message);
  });

  it('refuses a bad vmIPv6NetworkCIDR naming the field', () => {
    const network = { name: 'default', pod: { vmIPv6NetworkCIDR: 'fd20::/127' } };
    expect(() => radvdConfig([{ bridge: 'k6t-eth0', network, networkIndex: 2, mtu: 1500 }])).toThrow(
      /spec\.networks\[2\]\.pod\.vmIPv6NetworkCIDR/,
    );
  });
});
