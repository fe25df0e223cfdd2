import { describe, expect, it } from '@jest/globals';
import type { DomainSpec } from '../converter/index.ts';
import { definedMacs, withDefinedMacs } from './defined-macs.ts';

const XML = `<domain type="qemu"><name>ns_vm</name><devices>
  <interface type="ethernet"><mac address="52:54:00:AB:cd:01"/><target dev="tap0" managed="no"/><alias name="ua-default"/></interface>
  <interface type="ethernet"><alias name="ua-nomac"/></interface>
  <disk type="file"><alias name="ua-disk"/></disk>
</devices></domain>`;

describe('the MACs libvirt chose', () => {
  it('are read by alias, in lower case', () => {
    expect([...definedMacs(XML)]).toEqual([['ua-default', '52:54:00:ab:cd:01']]);
  });

  it('fill the interfaces the VMI named no MAC for, and only those', () => {
    const spec = {
      devices: {
        interfaces: [
          { type: 'ethernet', model: 'virtio', alias: { name: 'default', userDefined: true } },
          {
            type: 'ethernet',
            model: 'virtio',
            mac: '02:00:00:00:00:09',
            alias: { name: 'own', userDefined: true },
          },
        ],
      },
    } as unknown as DomainSpec;
    const macs = new Map([
      ['ua-default', '52:54:00:ab:cd:01'],
      ['ua-own', '52:54:00:00:00:00'],
    ]);
    expect(withDefinedMacs(spec, macs).devices.interfaces.map((i) => i.mac)).toEqual([
      '52:54:00:ab:cd:01',
      '02:00:00:00:00:09',
    ]);
  });
});
