/**
 * The libvirt client against a real, private libvirtd (session mode, testenv/libvirt/daemon.ts). Guests are
 * tiny TCG domains with no disk and no OS: SeaBIOS runs and waits, which is enough for every lifecycle
 * call. Guest-agent calls are exercised on their error path (no agent in such a guest).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { chownSync } from 'node:fs';
import { join } from 'node:path';
import { QEMU, startPrivateLibvirt, type PrivateLibvirt } from '../../testenv/libvirt/daemon.ts';
import { realClock } from '../kernel/clock.ts';
import { createLogger } from '../kernel/log/log.ts';
import * as lv from './index.ts';
import { waitFor } from '../kernel/testing/wait.ts';

const log = createLogger({ component: 'libvirt-itest' });
let daemon: PrivateLibvirt;
let conn: lv.LibvirtConnection;
let hub: lv.DomainEventHub;
const events: lv.DomainEvent[] = [];
const timings: Record<string, number> = {};

beforeAll(async () => {
  daemon = await timed('daemon start', () => startPrivateLibvirt({ log }));
  conn = await lv.LibvirtConnection.open({ socketPath: daemon.socketPath, uri: daemon.uri, log });
  hub = new lv.DomainEventHub(conn, log);
  await hub.subscribe(['lifecycle', 'device-added', 'device-removed', 'agent-lifecycle', 'reboot'], (e) =>
    events.push(e),
  );
}, 120_000);

afterAll(async () => {
  log.info('libvirt itest timings (ms)', timings);
  await conn.close();
  await daemon.stop();
}, 60_000);

function domainXml(name: string, devices = ''): string {
  return `<domain type='qemu'>
  <name>${name}</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='q35'>hvm</type></os>
  <cpu mode='custom' match='exact'><model fallback='allow'>qemu64</model></cpu>
  <devices>
    <emulator>${QEMU}</emulator>
    <controller type='scsi' index='0' model='virtio-scsi'/>
    <video><model type='none'/></video>
    <memballoon model='none'/>${devices}
  </devices>
</domain>`;
}

const agentChannel = `
    <channel type='unix'><source mode='bind'/><target type='virtio' name='org.qemu.guest_agent.0'/></channel>`;

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t0 = realClock.now();
  const v = await fn();
  timings[label] = realClock.now() - t0;
  return v;
}

const eventsOf = (name: string): lv.DomainEvent[] => events.filter((e) => e.domain.name === name);
const lifecycleOf = (name: string): string[] =>
  eventsOf(name).flatMap((e) =>
    e.kind === 'lifecycle' && e.event !== 'shutdown' ? [`${e.event}/${e.detail}`] : [],
  );

async function errorOf(p: Promise<unknown>): Promise<lv.LibvirtError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof lv.LibvirtError) return err;
    throw err;
  }
  throw new Error('expected a LibvirtError');
}

describe('connection', () => {
  it('reports the QEMU and libvirt versions and the host name', async () => {
    const qemu = await lv.getVersion(conn);
    const lib = await lv.getLibVersion(conn);
    expect(qemu.major).toBeGreaterThanOrEqual(7);
    expect(lib.major).toBeGreaterThanOrEqual(9);
    expect((await lv.getHostname(conn)).length).toBeGreaterThan(0);
    log.info('libvirt versions', { qemu: qemu.text, libvirt: lib.text });
  });

  it('returns host capabilities and TCG domain capabilities', async () => {
    const caps = await timed('capabilities', () => lv.getCapabilities(conn));
    expect(caps).toContain('<capabilities>');
    expect(caps).toMatch(/<arch>x86_64<\/arch>/);
    expect(caps).toContain("<domain type='qemu'");
    const dcaps = await lv.getDomainCapabilities(conn, { arch: 'x86_64', virtType: 'qemu', machine: 'q35' });
    expect(dcaps).toContain('<domainCapabilities>');
    expect(dcaps).toContain('<domain>qemu</domain>');
    expect(dcaps).toContain('qemu64');
  });

  it('answers a missing domain with VIR_ERR_NO_DOMAIN (42)', async () => {
    const err = await errorOf(lv.lookupDomainByName(conn, 'no-such-domain'));
    expect(err).toMatchObject({
      libvirtCode: 42,
      codeName: 'VIR_ERR_NO_DOMAIN',
      domainName: 'VIR_FROM_QEMU',
    });
    expect(err.message).toMatch(/no-such-domain/);
    expect(lv.isNoDomain(err)).toBe(true);
  });

  it.each([
    {
      what: 'malformed XML',
      xml: '<domain type="qemu"><name>broken',
      validate: false,
      code: 'VIR_ERR_XML_DETAIL',
    },
    {
      what: 'XML outside the schema (validate)',
      xml: "<domain type='qemu'><name>x</name><memory>65536</memory><bogus/><os><type>hvm</type></os></domain>",
      validate: true,
      code: 'VIR_ERR_XML_INVALID_SCHEMA',
    },
  ])('answers $what with $code', async ({ xml, validate, code }) => {
    expect((await errorOf(lv.defineDomain(conn, xml, { validate }))).codeName).toBe(code);
  });
});

describe('domain lifecycle', () => {
  const name = 'kv-itest-lifecycle';

  it('defines, starts paused, resumes, suspends, destroys and undefines, with states and events in order', async () => {
    let dom = await timed('define', () => lv.defineDomain(conn, domainXml(name), { validate: true }));
    expect(dom).toMatchObject({ name, id: -1 });
    expect(await lv.getDomainState(conn, dom)).toMatchObject({ state: 'shutoff', reason: 'unknown' });
    expect(await lv.lookupDomainByUuid(conn, dom.uuid)).toEqual(dom);

    dom = await timed('create paused', () => lv.createDomain(conn, dom, { paused: true }));
    expect(dom.id).toBeGreaterThan(0);
    expect(await lv.getDomainState(conn, dom)).toMatchObject({ state: 'paused', reason: 'user' });
    expect((await lv.listActiveDomains(conn)).map((d) => d.name)).toContain(name);

    await timed('resume', () => lv.resumeDomain(conn, dom));
    expect(await lv.getDomainState(conn, dom)).toMatchObject({ state: 'running', reason: 'unpaused' });
    await lv.suspendDomain(conn, dom);
    expect(await lv.getDomainState(conn, dom)).toMatchObject({ state: 'paused', reason: 'user' });
    await lv.resumeDomain(conn, dom);

    await timed('destroy', () => lv.destroyDomain(conn, dom));
    expect(await lv.getDomainState(conn, dom)).toMatchObject({ state: 'shutoff', reason: 'destroyed' });
    await lv.undefineDomain(conn, dom);
    expect(lv.isNoDomain(await errorOf(lv.lookupDomainByName(conn, name)))).toBe(true);

    const want = [
      'defined/added',
      'started/booted',
      'suspended/paused',
      'resumed/unpaused',
      'suspended/paused',
      'resumed/unpaused',
      'stopped/destroyed',
      'undefined/removed',
    ];
    await waitFor(() => lifecycleOf(name).length >= want.length, 'the undefined event');
    expect(lifecycleOf(name)).toEqual(want);
  });

  it('starts without pausing: running/booted', async () => {
    const dom = await lv.createDomain(conn, await lv.defineDomain(conn, domainXml(`${name}-2`)));
    expect(await lv.getDomainState(conn, dom)).toMatchObject({ state: 'running', reason: 'booted' });
    await lv.destroyDomain(conn, dom, { graceful: true });
    expect(await lv.getDomainState(conn, dom)).toMatchObject({ state: 'shutoff', reason: 'destroyed' });
    await lv.undefineDomain(conn, dom);
  });
});

describe('a running domain', () => {
  const name = 'kv-itest-running';
  let dom: lv.DomainRef;

  beforeAll(async () => {
    dom = await lv.createDomain(conn, await lv.defineDomain(conn, domainXml(name, agentChannel)));
  }, 60_000);
  afterAll(async () => {
    await lv.destroyDomain(conn, dom).catch(() => undefined);
    await lv.undefineDomain(conn, dom);
  });

  it('describes itself in XML, live and inactive', async () => {
    const live = await lv.getDomainXml(conn, dom);
    expect(live).toContain(`<name>${name}</name>`);
    expect(live).toContain(`<uuid>${dom.uuid}</uuid>`);
    expect(live).toMatch(new RegExp(`<domain type='qemu' id='${dom.id}'`));
    expect(live).toContain("<alias name='scsi0'/>");
    const inactive = await lv.getDomainXml(conn, dom, lv.DOMAIN_XML.INACTIVE);
    expect(inactive).toContain("<domain type='qemu'>");
  });

  const scsiDisk = (img: string, dev: string, alias: string): string =>
    `<disk type='file' device='disk'><driver name='qemu' type='qcow2'/><source file='${img}'/>
      <target dev='${dev}' bus='scsi'/><alias name='${alias}'/></disk>`;

  function qcow2(file: string): string {
    const img = join(daemon.dir, file);
    execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', img, '16M']);
    chownSync(img, daemon.identity.uid, daemon.identity.gid);
    return img;
  }

  it('hot-plugs and unplugs SCSI disks (by XML and by alias): device-added, then device-removed', async () => {
    const img = qcow2('hotplug.qcow2');
    const disk = scsiDisk(img, 'sda', 'ua-hotplug');
    await timed('attach disk', () => lv.attachDevice(conn, dom, disk, { live: true }));
    expect(await lv.getDomainXml(conn, dom)).toContain(img);
    await timed('detach disk', () => lv.detachDevice(conn, dom, disk, { live: true }));
    await waitFor(() => eventsOf(name).some((e) => e.kind === 'device-removed'), 'device-removed');
    expect(await lv.getDomainXml(conn, dom)).not.toContain(img);

    const img2 = qcow2('hotplug2.qcow2');
    await lv.attachDevice(conn, dom, scsiDisk(img2, 'sdb', 'ua-hotplug2'), { live: true });
    await lv.detachDeviceByAlias(conn, dom, 'ua-hotplug2', { live: true });
    await waitFor(
      () => eventsOf(name).filter((e) => e.kind === 'device-removed').length === 2,
      'second device-removed',
    );
    expect(eventsOf(name).filter((e) => e.kind.startsWith('device-'))).toEqual([
      { kind: 'device-added', domain: dom, alias: 'ua-hotplug' },
      { kind: 'device-removed', domain: dom, alias: 'ua-hotplug' },
      { kind: 'device-added', domain: dom, alias: 'ua-hotplug2' },
      { kind: 'device-removed', domain: dom, alias: 'ua-hotplug2' },
    ]);
  });

  it('detaching a device it does not have fails with a libvirt error', async () => {
    const missing = `<disk type='file' device='disk'><source file='/nonexistent.img'/><target dev='sdz' bus='scsi'/></disk>`;
    const err = await errorOf(lv.detachDevice(conn, dom, missing, { live: true }));
    expect(err.libvirtCode).toBe(lv.VIR_ERR.DEVICE_MISSING);
  });

  it('reports domain stats by libvirt key', async () => {
    const [stats] = await lv.getAllDomainStats(conn, { domains: [dom] });
    expect(stats?.domain).toEqual(dom);
    expect(stats?.params).toMatchObject({
      'state.state': 1,
      'vcpu.current': 1,
      'vcpu.maximum': 1,
      'balloon.maximum': 65536,
    });
    expect(typeof stats?.params['cpu.time']).toBe('number');
    const all = await lv.getAllDomainStats(conn, {
      stats: lv.DOMAIN_STATS.STATE,
      flags: lv.LIST_DOMAINS.ACTIVE,
    });
    expect(all.map((s) => s.domain.name)).toContain(name);
    expect(Object.keys(all[0]?.params ?? {}).sort()).toEqual(['state.reason', 'state.state']);
  });

  it('without a guest agent: agent-lifecycle says disconnected, agent calls fail with VIR_ERR_AGENT_UNRESPONSIVE', async () => {
    await waitFor(() => eventsOf(name).some((e) => e.kind === 'agent-lifecycle'), 'agent-lifecycle');
    expect(eventsOf(name).find((e) => e.kind === 'agent-lifecycle')).toMatchObject({
      state: 'disconnected',
      reason: 'domain_started',
    });
    const calls: [string, () => Promise<unknown>][] = [
      ['agent command', () => lv.agentCommand(conn, dom, { execute: 'guest-ping' }, { timeoutSeconds: 1 })],
      ['fsfreeze', () => lv.fsFreeze(conn, dom)],
      ['fsthaw', () => lv.fsThaw(conn, dom)],
      ['guest info', () => lv.getGuestInfo(conn, dom)],
    ];
    for (const [what, call] of calls) {
      const err = await errorOf(call());
      expect({ what, code: err.codeName }).toEqual({ what, code: 'VIR_ERR_AGENT_UNRESPONSIVE' });
    }
  });

  it('resets (reboot event), takes shutdown and reboot requests, and stays running', async () => {
    await lv.resetDomain(conn, dom);
    await waitFor(() => eventsOf(name).some((e) => e.kind === 'reboot'), 'reboot event');
    // No OS answers ACPI here: the requests are accepted and the guest keeps running.
    await lv.shutdownDomain(conn, dom, lv.DOMAIN_SHUTDOWN.ACPI_POWER_BTN);
    await lv.rebootDomain(conn, dom, lv.DOMAIN_REBOOT.ACPI_POWER_BTN);
    expect((await lv.getDomainState(conn, dom)).state).toBe('running');
  });

  it('lists the domain and finds it by name', async () => {
    expect((await lv.listDomains(conn)).map((d) => d.name)).toContain(name);
    expect(await lv.lookupDomainByName(conn, name)).toEqual(dom);
  });
});
