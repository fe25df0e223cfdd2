import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { LibvirtConnection } from './connection.ts';
import { updateDevice } from './lifecycle.ts';
import { PROC } from './procedures.ts';
import { FakeDaemon } from './testing/fake-daemon.ts';
import { getVcpus, setVcpus, vcpuFlags } from './vcpus.ts';
import { decode, encode } from './xdr.ts';

const dom = { name: 'ns_vm', uuid: '0b3c5a1e-3c8a-4d5e-9f00-112233445566', id: 3 };
const wireDom = { name: 'ns_vm', uuid: Buffer.from('0b3c5a1e3c8a4d5e9f00112233445566', 'hex'), id: 3 };

let daemon: FakeDaemon;
let conn: LibvirtConnection;

beforeEach(async () => {
  daemon = await FakeDaemon.start();
  conn = await LibvirtConnection.open({ socketPath: daemon.path, uri: 'qemu:///session', keepAlive: false });
});
afterEach(async () => {
  await conn.close();
  await daemon.stop();
});

describe('vcpuFlags', () => {
  it.each([
    { scope: {}, maximum: false, want: 0 },
    { scope: { live: true }, maximum: false, want: 1 },
    { scope: { config: true }, maximum: false, want: 2 },
    { scope: { live: true, config: true }, maximum: false, want: 3 },
    { scope: { live: true }, maximum: true, want: 5 },
    { scope: { config: true }, maximum: true, want: 6 },
  ])('$scope maximum=$maximum is $want', ({ scope, maximum, want }) => {
    expect(vcpuFlags(scope, maximum)).toBe(want);
  });
});

describe('vCPU and device calls on the wire', () => {
  it('setVcpus sends DOMAIN_SET_VCPUS_FLAGS (199) with the count and LIVE|CONFIG', async () => {
    const done = setVcpus(conn, dom, 6);
    const call = await daemon.nextCall();
    expect(call.header.procedure).toBe(199);
    expect(decode(PROC.domainSetVcpusFlags.args, call.payload)).toEqual({
      dom: wireDom,
      nvcpus: 6,
      flags: 3,
    });
    daemon.reply(call);
    await done;
  });

  it('setVcpus on the live domain alone sends LIVE', async () => {
    const done = setVcpus(conn, dom, 2, { scope: { live: true } });
    const call = await daemon.nextCall();
    expect(decode(PROC.domainSetVcpusFlags.args, call.payload).flags).toBe(1);
    daemon.reply(call);
    await done;
  });

  it('getVcpus sends DOMAIN_GET_VCPUS_FLAGS (200) and answers the count', async () => {
    const got = getVcpus(conn, dom, { scope: { live: true }, maximum: true });
    const call = await daemon.nextCall();
    expect(call.header.procedure).toBe(200);
    expect(decode(PROC.domainGetVcpusFlags.args, call.payload)).toEqual({ dom: wireDom, flags: 5 });
    daemon.reply(call, encode(PROC.domainGetVcpusFlags.ret, { num: 8 }));
    await expect(got).resolves.toBe(8);
  });

  it('updateDevice sends DOMAIN_UPDATE_DEVICE_FLAGS (174) with the XML and LIVE', async () => {
    const xml = "<memory model='virtio-mem'/>";
    const done = updateDevice(conn, dom, xml);
    const call = await daemon.nextCall();
    expect(call.header.procedure).toBe(174);
    expect(decode(PROC.domainUpdateDeviceFlags.args, call.payload)).toEqual({ dom: wireDom, xml, flags: 1 });
    daemon.reply(call);
    await done;
  });

  it('a refusal rejects with libvirt error', async () => {
    const done = setVcpus(conn, dom, 99);
    const call = await daemon.nextCall();
    daemon.replyError(call, { code: 8, message: 'requested vcpus is greater than max allowable vcpus' });
    await expect(done).rejects.toThrow(/greater than max allowable/);
  });
});
