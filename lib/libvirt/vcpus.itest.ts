/**
 * setVcpus against a real, private libvirtd: a running TCG guest (no OS, SeaBIOS waits) defined as the
 * converter defines a hotplug VMI (a maximum of four sockets, one enabled and fixed, three hotpluggable) gets
 * a second and third vCPU, live and in its persistent definition; a count above the maximum and a count
 * of zero are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { QEMU, startPrivateLibvirt, type PrivateLibvirt } from '../../testenv/libvirt/daemon.ts';
import { createLogger } from '../kernel/log/log.ts';
import * as lv from './index.ts';

const log = createLogger({ component: 'libvirt-vcpus-itest' });
let daemon: PrivateLibvirt;
let conn: lv.LibvirtConnection;
let dom: lv.DomainRef;

const NAME = 'kv-itest-vcpus';

function hotplugDomainXml(): string {
  const vcpus = [0, 1, 2, 3]
    .map(
      (id) =>
        `<vcpu id='${String(id)}' enabled='${id === 0 ? 'yes' : 'no'}' hotpluggable='${id === 0 ? 'no' : 'yes'}'/>`,
    )
    .join('');
  return `<domain type='qemu'>
  <name>${NAME}</name>
  <memory unit='MiB'>64</memory>
  <vcpu placement='static' current='1'>4</vcpu>
  <vcpus>${vcpus}</vcpus>
  <os><type arch='x86_64' machine='q35'>hvm</type></os>
  <cpu mode='custom' match='exact'><model fallback='allow'>qemu64</model><topology sockets='4' dies='1' cores='1' threads='1'/></cpu>
  <devices>
    <emulator>${QEMU}</emulator>
    <video><model type='none'/></video>
    <memballoon model='none'/>
  </devices>
</domain>`;
}

beforeAll(async () => {
  daemon = await startPrivateLibvirt({ log });
  conn = await lv.LibvirtConnection.open({ socketPath: daemon.socketPath, uri: daemon.uri, log });
  dom = await lv.defineDomain(conn, hotplugDomainXml());
  dom = await lv.createDomain(conn, dom);
}, 120_000);

afterAll(async () => {
  await lv.destroyDomain(conn, dom).catch(() => undefined);
  await lv.undefineDomain(conn, dom).catch(() => undefined);
  await conn.close();
  await daemon.stop();
}, 60_000);

const live = { scope: { live: true } };
const config = { scope: { config: true } };

describe('setVcpus on a running domain', () => {
  it('starts with one of four vCPUs', async () => {
    expect(await lv.getVcpus(conn, dom, live)).toBe(1);
    expect(await lv.getVcpus(conn, dom, { ...live, maximum: true })).toBe(4);
  });

  it('plugs vCPUs live and in the persistent definition', async () => {
    await lv.setVcpus(conn, dom, 3);
    expect(await lv.getVcpus(conn, dom, live)).toBe(3);
    expect(await lv.getVcpus(conn, dom, config)).toBe(3);
    const xml = await lv.getDomainXml(conn, dom);
    expect(xml).toMatch(/<vcpu id='2' enabled='yes' hotpluggable='yes'/);
    expect(xml).toMatch(/<vcpu id='3' enabled='no' hotpluggable='yes'/);
  }, 60_000);

  it('refuses a count above the maximum', async () => {
    await expect(lv.setVcpus(conn, dom, 5)).rejects.toBeInstanceOf(lv.LibvirtError);
    expect(await lv.getVcpus(conn, dom, live)).toBe(3);
  });

  it('refuses a count of zero', async () => {
    await expect(lv.setVcpus(conn, dom, 0)).rejects.toBeInstanceOf(lv.LibvirtError);
  });
});
