import { describe, expect, it } from '@jest/globals';
import { missingFromReadBack, readBackMismatches } from './read-back.ts';

const given = `<domain type="kvm">
  <name>ns_vm</name>
  <uuid>5d307ca9-b3ef-428c-8861-06e72d69f223</uuid>
  <memory unit="b">100663296</memory>
  <clock offset="utc"><timer name="rtc" tickpolicy="catchup"/><timer name="hpet" present="no"/></clock>
  <devices>
    <controller type="usb" index="0" model="none"/>
    <controller type="scsi" index="0" model="virtio-non-transitional"/>
    <disk device="disk" type="file"><target bus="virtio" dev="vda"/><alias name="ua-root"/></disk>
    <disk device="disk" type="block"><target bus="sata" dev="sda"/><alias name="ua-data"/></disk>
  </devices>
</domain>`;

describe('readBackMismatches', () => {
  it('finds nothing when libvirt only adds and reorders', () => {
    const readBack = given
      .replace(
        '<devices>',
        "<devices><emulator>/usr/bin/qemu-system-x86_64</emulator><controller type='sata' index='0'/>",
      )
      .replace('<name>ns_vm</name>', '<on_crash>destroy</on_crash><name>ns_vm</name>');
    expect(readBackMismatches(given, readBack)).toEqual([]);
  });

  it.each([
    [
      'another virt type',
      given.replace('type="kvm"', 'type="qemu"'),
      ['virt type: defined "kvm", read back "qemu"'],
    ],
    ['another name', given.replace('ns_vm', 'other'), ['name: defined "ns_vm", read back "other"']],
    [
      'another UUID',
      given.replace('5d307ca9', '00000000'),
      [
        'uuid: defined "5d307ca9-b3ef-428c-8861-06e72d69f223", read back "00000000-b3ef-428c-8861-06e72d69f223"',
      ],
    ],
    [
      'a device gone',
      given.replace('<alias name="ua-data"/>', ''),
      ['device alias ua-data is not read back'],
    ],
  ])('names %s', (_what, readBack, want) => {
    expect(readBackMismatches(given, readBack)).toEqual(want);
  });

  it('leaves the UUID out when none was given (libvirt makes one up)', () => {
    const noUuid = given.replace(/<uuid>.*<\/uuid>/, '');
    expect(readBackMismatches(noUuid, given)).toEqual([]);
  });
});

describe('missingFromReadBack', () => {
  it('finds nothing in the XML itself', () => {
    expect(missingFromReadBack(given, given)).toEqual([]);
  });

  it.each([
    [
      'an attribute of one of two like elements, told apart by alias',
      given.replace('<target bus="sata" dev="sda"/>', '<target bus="sata" dev="sdz"/>'),
      ['/domain/devices/disk[ua-data]/target@dev=sda'],
    ],
    [
      'a timer, told apart by name',
      given.replace('<timer name="hpet" present="no"/>', ''),
      [
        '/domain/clock/timer[hpet]',
        '/domain/clock/timer[hpet]@name=hpet',
        '/domain/clock/timer[hpet]@present=no',
      ],
    ],
    [
      'a controller attribute, told apart by type and index',
      given.replace('model="none"', 'model="qemu-xhci"'),
      ['/domain/devices/controller[usb,0]@model=none'],
    ],
    [
      'text re-expressed in another unit',
      given.replace('<memory unit="b">100663296</memory>', "<memory unit='KiB'>98304</memory>"),
      ['/domain/memory@unit=b', '/domain/memory = 100663296'],
    ],
  ])('lists %s', (_what, readBack, want) => {
    expect(missingFromReadBack(given, readBack)).toEqual(want);
  });
});
