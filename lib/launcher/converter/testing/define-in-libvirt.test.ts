import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { LibvirtConnection, LibvirtError, uuidToBytes, VIR_ERR } from '../../../libvirt/index.ts';
import { PROC } from '../../../libvirt/procedures.ts';
import type { Packet } from '../../../libvirt/protocol.ts';
import { FakeDaemon } from '../../../libvirt/testing/fake-daemon.ts';
import { decode, encode } from '../../../libvirt/xdr.ts';
import { asTcgDomain, defineAndUndefine, isKvmRefusal } from './define-in-libvirt.ts';

const golden = (name: string): string =>
  readFileSync(new URL(`../testdata/${name}.domain.xml`, import.meta.url), 'utf8');
const KVM_REFUSED =
  "unsupported configuration: Emulator '/usr/bin/qemu-system-x86_64' does not support virt type 'kvm'";
const refusal = (code: number, message: string): LibvirtError =>
  new LibvirtError({ code, domain: 10, message, level: 2 });

describe('isKvmRefusal', () => {
  it.each([
    ["libvirt 9.0's refusal of type='kvm'", refusal(VIR_ERR.CONFIG_UNSUPPORTED, KVM_REFUSED), true],
    [
      'the same code for another virt type',
      refusal(
        VIR_ERR.CONFIG_UNSUPPORTED,
        "unsupported configuration: Emulator 'q' does not support virt type 'xen'",
      ),
      false,
    ],
    [
      'the same code for another rule',
      refusal(
        VIR_ERR.CONFIG_UNSUPPORTED,
        'unsupported configuration: Secure boot requires SMM feature enabled',
      ),
      false,
    ],
    ['the message under another code', refusal(VIR_ERR.INTERNAL_ERROR, KVM_REFUSED), false],
    ['not a libvirt error', new Error(KVM_REFUSED), false],
  ])('%s', (_what, err, want) => {
    expect(isKvmRefusal(err)).toBe(want);
  });
});

describe('asTcgDomain', () => {
  it.each([
    [
      'our writer',
      '<domain type="kvm" xmlns:qemu="q">\n  <name>a</name>\n</domain>\n',
      '<domain type="qemu" xmlns:qemu="q">\n  <name>a</name>\n</domain>\n',
    ],
    [
      "libvirt's writer",
      "<domain type='kvm' id='3'><name>a</name></domain>",
      "<domain type='qemu' id='3'><name>a</name></domain>",
    ],
    [
      'after an XML declaration, type not first',
      '<?xml version="1.0"?>\n<domain id="1" type="kvm"/>',
      '<?xml version="1.0"?>\n<domain id="1" type="qemu"/>',
    ],
  ])('changes only the root type (%s)', (_what, xml, want) => {
    expect(asTcgDomain(xml)).toBe(want);
  });

  it('leaves every byte of a golden but the type as it is', () => {
    const xml = golden('hyperv');
    const tcg = asTcgDomain(xml);
    expect(tcg.replace('<domain type="qemu"', '<domain type="kvm"')).toBe(xml);
    expect(tcg).toContain('<domain type="qemu"');
  });

  it.each([
    ['a TCG domain', '<domain type="qemu"/>'],
    ['kvm on another element only', '<domain type="qemu"><x type="kvm"/></domain>'],
    ['a type like kvm', '<domain type="kvm2"/>'],
  ])('refuses %s', (_what, xml) => {
    expect(() => asTcgDomain(xml)).toThrow(expect.objectContaining({ code: 'KV_ERR_INVALID' }));
  });
});

describe('defineAndUndefine against a scripted daemon', () => {
  let daemon: FakeDaemon;
  let conn: LibvirtConnection;
  const xml = golden('efi-secureboot');
  const dom = { name: 'default_win', uuid: uuidToBytes('1a2b3c4d-5e6f-4a1b-9c2d-3e4f5a6b7c8d'), id: -1 };

  beforeEach(async () => {
    daemon = await FakeDaemon.start();
    conn = await LibvirtConnection.open({
      socketPath: daemon.path,
      uri: 'qemu:///session',
      keepAlive: false,
    });
  });
  afterEach(async () => {
    await conn.close();
    await daemon.stop();
  });

  const definedXml = (call: Packet): string => {
    expect(call.header.procedure).toBe(PROC.domainDefineXmlFlags.procedure);
    const args = decode(PROC.domainDefineXmlFlags.args, call.payload);
    expect(args.flags).toBe(1); // VIR_DOMAIN_DEFINE_VALIDATE
    return args.xml;
  };
  const acceptDefine = (call: Packet): void => {
    daemon.reply(call, encode(PROC.domainDefineXmlFlags.ret, { dom }));
  };
  /** Answers the read-back with `readBack` and the undefine; returns the procedures called. */
  async function readBackAndUndefine(readBack: string): Promise<number[]> {
    const get = await daemon.nextCall();
    daemon.reply(get, encode(PROC.domainGetXmlDesc.ret, { xml: readBack }));
    const undefine = await daemon.nextCall();
    expect(decode(PROC.domainUndefineFlags.args, undefine.payload).flags).toBe(4); // VIR_DOMAIN_UNDEFINE_NVRAM
    daemon.reply(undefine);
    return [get.header.procedure, undefine.header.procedure];
  }

  it('defines, reads back and undefines what libvirt accepts as given', async () => {
    const done = defineAndUndefine(conn, xml);
    const define = await daemon.nextCall();
    expect(definedXml(define)).toBe(xml);
    acceptDefine(define);
    expect(await readBackAndUndefine(xml)).toEqual([
      PROC.domainGetXmlDesc.procedure,
      PROC.domainUndefineFlags.procedure,
    ]);
    await expect(done).resolves.toEqual({ readBack: xml, defined: xml });
  });

  it("defines type='qemu' when libvirt refuses type='kvm' for that alone, and says so", async () => {
    const done = defineAndUndefine(conn, xml);
    daemon.replyError(await daemon.nextCall(), { code: VIR_ERR.CONFIG_UNSUPPORTED, message: KVM_REFUSED });
    const retry = await daemon.nextCall();
    expect(definedXml(retry)).toBe(asTcgDomain(xml));
    acceptDefine(retry);
    await readBackAndUndefine(asTcgDomain(xml));
    await expect(done).resolves.toEqual({
      readBack: asTcgDomain(xml),
      defined: asTcgDomain(xml),
      kvmRefused: KVM_REFUSED,
    });
  });

  it("fails with libvirt's message when the type='qemu' retry is refused too", async () => {
    const done = defineAndUndefine(conn, xml);
    daemon.replyError(await daemon.nextCall(), { code: VIR_ERR.CONFIG_UNSUPPORTED, message: KVM_REFUSED });
    daemon.replyError(await daemon.nextCall(), {
      code: VIR_ERR.CONFIG_UNSUPPORTED,
      message: 'unsupported configuration: Secure boot requires SMM feature enabled',
    });
    await expect(done).rejects.toThrow(
      `libvirt refused type='kvm' (${KVM_REFUSED}), then type='qemu': unsupported configuration: Secure boot requires SMM feature enabled`,
    );
    expect(daemon.calls).toEqual([]);
  });

  it.each([
    [
      'another refusal',
      { code: VIR_ERR.XML_INVALID_SCHEMA, message: 'XML document failed to validate against schema' },
      {},
    ],
    [
      'the kvm refusal with the fallback off',
      { code: VIR_ERR.CONFIG_UNSUPPORTED, message: KVM_REFUSED },
      { tcgWhenKvmRefused: false },
    ],
  ])("fails with libvirt's own error on %s, with no retry", async (_what, err, o) => {
    const done = defineAndUndefine(conn, xml, o);
    daemon.replyError(await daemon.nextCall(), err);
    await expect(done).rejects.toThrow(
      expect.objectContaining({ message: err.message, libvirtCode: err.code }),
    );
    expect(daemon.calls).toEqual([]);
  });

  it('fails when the read-back is another domain, and still undefines', async () => {
    const done = defineAndUndefine(conn, xml);
    acceptDefine(await daemon.nextCall());
    await readBackAndUndefine(xml.replace('<name>default_win</name>', '<name>other</name>'));
    await expect(done).rejects.toThrow('name: defined "default_win", read back "other"');
  });
});
