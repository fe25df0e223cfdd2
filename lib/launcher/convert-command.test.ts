import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KvError } from '../kernel/errors/errors.ts';
import { parseVmiDocument, runConvert } from './convert-command.ts';

const YAML_VMI = `
apiVersion: kubevirt.io/v1
kind: VirtualMachineInstance
metadata:
  name: marker
  namespace: e2e
  uid: 0b3c6f5e-4a1d-4c55-9d1e-1f2a3b4c5d6e
spec:
  domain:
    memory:
      guest: 96Mi
    firmware:
      kernelBoot:
        kernelArgs: console=ttyS0
        container:
          image: guest:1
          kernelPath: /boot/vmlinux
    devices:
      autoattachPodInterface: false
`;

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kv-convert-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const p = path.join(dir, name);
  await writeFile(p, text);
  return p;
}

describe('runConvert', () => {
  it('converts a YAML VMI with KubeVirt defaults applied, for TCG', async () => {
    const xml = await runConvert({ vmi: await file('vmi.yaml', YAML_VMI), emulation: true, arch: 'amd64' });
    expect(xml).toMatch(/^<domain type="qemu" /);
    expect(xml).toContain('<name>e2e_marker</name>');
    expect(xml).toContain('<memory unit="b">100663296</memory>');
    expect(xml).toContain('<kernel>/var/run/kubevirt-kernel-boot/boot/vmlinux</kernel>');
    expect(xml).toContain('<cmdline>console=ttyS0</cmdline>');
    expect(xml).toContain('<model>qemu64</model>');
    // Defaults: ACPI on, VNC attached (KubeVirt's default), no interface (autoattachPodInterface: false).
    expect(xml).toContain('<acpi/>');
    expect(xml).toContain('<graphics type="vnc">');
    expect(xml).not.toContain('<interface');
  });

  it('converts JSON, for KVM on arm64', async () => {
    const vmi = parseVmiDocument(YAML_VMI, 'inline');
    const xml = await runConvert({
      vmi: await file('vmi.json', JSON.stringify(vmi)),
      emulation: false,
      arch: 'arm64',
    });
    expect(xml).toMatch(/^<domain type="kvm" /);
    expect(xml).toContain('<type arch="aarch64" machine="virt">hvm</type>');
    expect(xml).toContain('<cpu mode="host-passthrough">');
  });

  it('reports a conversion error naming the field', async () => {
    const broken = YAML_VMI.replace('autoattachPodInterface: false', 'disks: [{name: root}]');
    await expect(
      runConvert({ vmi: await file('bad.yaml', broken), emulation: true, arch: 'amd64' }),
    ).rejects.toThrow('spec.domain.devices.disks[0].name: no volume named root in spec.volumes');
  });

  it.each<[string, [string, string], string]>([
    [
      'a word for cores',
      ['autoattachPodInterface: false', 'autoattachPodInterface: false\n    cpu: {cores: "four"}'],
      'spec.domain.cpu.cores: expected an integer, got the string "four"',
    ],
    [
      'negative cores',
      ['autoattachPodInterface: false', 'autoattachPodInterface: false\n    cpu: {cores: -2}'],
      'spec.domain.cpu.cores: must be greater than or equal to 0, got -2',
    ],
    [
      '100 million cores',
      ['autoattachPodInterface: false', 'autoattachPodInterface: false\n    cpu: {cores: 100000000}'],
      'spec.domain.cpu: 100000000 vCPUs (1 sockets × 100000000 cores × 1 threads) exceed the maximum of 512',
    ],
    [
      'memory 1Ei',
      ['guest: 96Mi', 'guest: 1Ei'],
      'spec.domain.memory.guest: quantity "1Ei" is too large: at most 9007199254740991',
    ],
    [
      'memory lots',
      ['guest: 96Mi', 'guest: lots'],
      'spec.domain.memory.guest: quantity "lots" is not a valid resource quantity',
    ],
    [
      'disks as a string',
      ['autoattachPodInterface: false', 'disks: root'],
      'spec.domain.devices.disks: expected an array, got a string',
    ],
    [
      'interfaces as an object',
      ['autoattachPodInterface: false', 'interfaces: {name: default}'],
      'spec.domain.devices.interfaces: expected an array, got an object',
    ],
    [
      'a null disk',
      ['autoattachPodInterface: false', 'disks: [null]'],
      'spec.domain.devices.disks[0]: expected an object, got null',
    ],
  ])('refuses %s, naming the field', async (_, [from, to], message) => {
    const vmi = await file('bad.yaml', YAML_VMI.replace(from, to));
    await expect(runConvert({ vmi, emulation: true, arch: 'amd64' })).rejects.toMatchObject({ message });
  });

  it('refuses an unknown architecture', async () => {
    const vmi = await file('a.yaml', YAML_VMI);
    await expect(runConvert({ vmi, emulation: false, arch: 'ppc64le' })).rejects.toMatchObject({
      code: 'KV_ERR_CONFIG',
    });
  });

  it('fails on a missing file', async () => {
    await expect(
      runConvert({ vmi: path.join(dir, 'nope.yaml'), emulation: false, arch: 'amd64' }),
    ).rejects.toMatchObject({
      code: 'KV_ERR_CONFIG',
      message: `no such file: ${path.join(dir, 'nope.yaml')}`,
    });
  });
});

describe('parseVmiDocument', () => {
  it.each<[string, string, RegExp]>([
    ['not YAML', 'a: [1, 2', /not JSON or YAML/],
    ['a list', '- 1\n- 2\n', /expected an object/],
    [
      'another kind',
      'kind: VirtualMachine\nmetadata: {}\nspec: {domain: {devices: {}}}',
      /expected a VirtualMachineInstance/,
    ],
    ['no devices', 'metadata: {}\nspec: {domain: {}}', /^spec.domain.devices: required value$/],
    ['no metadata', 'spec: {domain: {devices: {}}}', /^metadata: required value$/],
    [
      'several problems',
      'metadata: {name: 7}\nspec: {domain: {cpu: {threads: 1.5}, devices: {disks: [null]}}}',
      /^metadata.name: expected a string, got the number 7; spec.domain.cpu.threads: expected an integer, got the number 1.5; spec.domain.devices.disks\[0\]: expected an object, got null$/,
    ],
  ])('refuses %s', (_, text, message) => {
    expect(() => parseVmiDocument(text, 'f.yaml')).toThrow(message);
    expect(() => parseVmiDocument(text, 'f.yaml')).toThrow(KvError);
  });
});
