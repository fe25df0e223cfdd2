import { describe, expect, it } from '@jest/globals';
import type { Devices as VmiDevices } from '../../kubevirt/index.ts';
import { withSpec } from '../../kubevirt/testing/builders.ts';
import { devicesXml } from './devices-xml.ts';
import { runConfigurator, testVmi } from './testing/vmi.ts';
import { tpmConfigurator } from './tpm.ts';
import { renderXml } from './xml.ts';

const withTpm = (tpm: VmiDevices['tpm']): ReturnType<typeof withSpec> =>
  withSpec((s) => {
    if (tpm !== undefined) s.domain.devices.tpm = tpm;
  });

describe('TPM (kubevirt converter.go tpm.HasDevice)', () => {
  it.each<[string, VmiDevices['tpm'], unknown]>([
    ['none asked', undefined, undefined],
    ['switched off', { enabled: false }, undefined],
    ['switched off, persistent', { enabled: false, persistent: true }, undefined],
    [
      '{} (as Deckhouse asks for Windows)',
      {},
      { model: 'tpm-tis', backend: { type: 'emulator', version: '2.0' } },
    ],
    [
      'enabled, not persistent',
      { enabled: true, persistent: false },
      { model: 'tpm-tis', backend: { type: 'emulator', version: '2.0' } },
    ],
    [
      'persistent: CRB, state kept',
      { persistent: true },
      { model: 'tpm-crb', backend: { type: 'emulator', version: '2.0', persistentState: 'yes' } },
    ],
  ])('%s', (_name, tpm, want) => {
    expect(runConfigurator(tpmConfigurator, testVmi(withTpm(tpm))).devices.tpm).toEqual(want);
  });

  it.each<[string, VmiDevices['tpm'], string]>([
    ['plain', {}, '<tpm model="tpm-tis">\n  <backend type="emulator" version="2.0"/>\n</tpm>'],
    [
      'persistent',
      { persistent: true },
      '<tpm model="tpm-crb">\n  <backend type="emulator" version="2.0" persistent_state="yes"/>\n</tpm>',
    ],
  ])('is written as libvirt reads it: %s', (_name, tpm, xml) => {
    const devices = devicesXml(runConfigurator(tpmConfigurator, testVmi(withTpm(tpm))).devices);
    const element = devices.children.find((c) => c.name === 'tpm');
    expect(element && renderXml(element).trim()).toBe(xml);
  });
});
