/**
 * `<devices>` as XML, in KubeVirt's element order (api/schema.go Devices): interfaces, channels, hostdevs,
 * controllers, video, graphics, memballoon, disks, inputs, serials, consoles, watchdogs, rng, filesystems, tpm,
 * memory.
 */
import type {
  Address,
  Alias,
  Devices,
  Disk,
  DiskSource,
  HostDevice,
  Interface,
  VirtioMem,
} from './domain-spec.ts';
import { el, textEl, type XmlElement } from './xml.ts';

const USER_ALIAS_PREFIX = 'ua-';

function aliasXml(alias: Alias | undefined): XmlElement | undefined {
  if (alias === undefined) return undefined;
  return el('alias', { name: alias.userDefined ? `${USER_ALIAS_PREFIX}${alias.name}` : alias.name });
}

function addressXml(a: Address | undefined): XmlElement | undefined {
  if (a === undefined) return undefined;
  if (a.type === 'drive')
    return el('address', { type: 'drive', controller: a.controller, bus: a.bus, unit: a.unit });
  return el('address', { type: 'pci', domain: a.domain, bus: a.bus, slot: a.slot, function: a.function });
}

function sourceXml(diskSource: DiskSource): XmlElement | undefined {
  const r = diskSource.reservations;
  if (diskSource.dev === undefined && diskSource.file === undefined && r === undefined) return undefined;
  return el(
    'source',
    { dev: diskSource.dev, file: diskSource.file },
    r !== undefined &&
      el(
        'reservations',
        { managed: r.managed },
        el('source', { type: r.source.type, path: r.source.path, mode: r.source.mode }),
      ),
  );
}

/** One `<disk>` (as attach and detach take it). */
function diskXml(d: Disk): XmlElement {
  const { driver: dr, backingStore: bs } = d;
  return el(
    'disk',
    { device: d.device, type: d.type, model: d.model },
    sourceXml(d.source),
    el('target', { bus: d.target.bus, dev: d.target.dev, tray: d.target.tray }),
    d.serial !== undefined && textEl('serial', d.serial),
    el('driver', {
      cache: dr.cache,
      error_policy: dr.errorPolicy,
      io: dr.io,
      name: dr.name,
      type: dr.type,
      iothread: dr.iothread,
      queues: dr.queues,
      discard: dr.discard,
    }),
    d.readonly && el('readonly'),
    aliasXml(d.alias),
    bs !== undefined &&
      el('backingStore', { type: bs.type }, el('format', { type: bs.format }), sourceXml(bs.source)),
    d.bootOrder !== undefined && el('boot', { order: d.bootOrder }),
    addressXml(d.address),
    d.blockIo !== undefined &&
      el('blockio', { logical_block_size: d.blockIo.logical, physical_block_size: d.blockIo.physical }),
    d.shareable && el('shareable'),
  );
}

/** One `<interface>`. */
function interfaceXml(i: Interface): XmlElement {
  return el(
    'interface',
    { type: i.type },
    addressXml(i.address),
    el('model', { type: i.model }),
    i.mac !== undefined && el('mac', { address: i.mac }),
    i.mtu !== undefined && el('mtu', { size: i.mtu }),
    i.target !== undefined && el('target', { dev: i.target.dev, managed: i.target.managed }),
    i.bootOrder !== undefined && el('boot', { order: i.bootOrder }),
    i.linkState !== undefined && el('link', { state: i.linkState }),
    aliasXml(i.alias),
    i.driver !== undefined && el('driver', { name: i.driver.name, queues: i.driver.queues }),
    i.romEnabled !== undefined && el('rom', { enabled: i.romEnabled }),
    i.acpiIndex !== undefined && el('acpi', { index: i.acpiIndex }),
  );
}

/**
 * One `<hostdev>`: what it passes through in `<source>`, then its alias. A PCI source address goes without the
 * `type="pci"` KubeVirt writes there: libvirt's schema has no such attribute on it (and its parser ignores it).
 */
function hostDeviceXml(h: HostDevice): XmlElement {
  switch (h.type) {
    case 'pci': {
      const a = h.source;
      return el(
        'hostdev',
        { mode: 'subsystem', type: 'pci', managed: 'no' },
        el('source', {}, el('address', { domain: a.domain, bus: a.bus, slot: a.slot, function: a.function })),
        aliasXml(h.alias),
      );
    }
    case 'mdev':
      return el(
        'hostdev',
        { mode: 'subsystem', type: 'mdev', model: 'vfio-pci', display: h.display, ramfb: h.ramfb },
        el('source', {}, el('address', { uuid: h.uuid })),
        aliasXml(h.alias),
      );
    case 'usb':
      return el(
        'hostdev',
        { mode: 'subsystem', type: 'usb' },
        el('source', {}, el('address', { bus: h.bus, device: h.device })),
        aliasXml(h.alias),
      );
  }
}

function consoleDevicesXml(devices: Devices): XmlElement[] {
  return [
    ...devices.serials.map((s) =>
      el(
        'serial',
        { type: 'unix' },
        el('target', { port: s.port }),
        el('source', { mode: 'bind', path: s.socket }),
        s.logFile !== undefined && el('log', { file: s.logFile, append: 'on' }),
      ),
    ),
    ...devices.consoles.map((c) =>
      el('console', { type: c.type }, el('target', { type: c.targetType, port: c.port })),
    ),
  ];
}

const kib = (bytes: number): number => bytes / 1024;

/**
 * The virtio-mem `<memory>` device (kubevirt api MemoryDevice). In KiB, not KubeVirt's bytes: libvirt stores
 * and reports it in KiB, so the definition reads back as written (every size is in whole 2 MiB blocks).
 */
function virtioMemXml(m: VirtioMem): XmlElement {
  return el(
    'memory',
    { model: 'virtio-mem' },
    el(
      'target',
      {},
      textEl('size', kib(m.sizeBytes), { unit: 'KiB' }),
      textEl('node', m.node),
      textEl('block', kib(m.blockBytes), { unit: 'KiB' }),
      textEl('requested', kib(m.requestedBytes), { unit: 'KiB' }),
    ),
  );
}

export function devicesXml(d: Devices): XmlElement {
  const b = d.memBalloon;
  return el(
    'devices',
    {},
    d.interfaces.map(interfaceXml),
    d.channels.map((c) =>
      el(
        'channel',
        { type: c.type },
        c.source !== undefined && el('source', { mode: c.source.mode, path: c.source.path }),
        el('target', { name: c.target.name, type: c.target.type }),
      ),
    ),
    d.hostDevices.map(hostDeviceXml),
    d.controllers.map((c) =>
      el(
        'controller',
        { type: c.type, index: c.index, model: c.model },
        c.driver !== undefined && el('driver', { iothread: c.driver.iothread, queues: c.driver.queues }),
      ),
    ),
    d.video.map((v) => el('video', {}, el('model', { type: v.type, heads: v.heads, vram: v.vram }))),
    d.graphics.map((g) =>
      el('graphics', { type: g.type }, el('listen', { type: 'socket', socket: g.socket })),
    ),
    b !== undefined &&
      el(
        'memballoon',
        { model: b.model, freePageReporting: b.freePageReporting },
        b.statsPeriod !== undefined && el('stats', { period: b.statsPeriod }),
      ),
    d.disks.map(diskXml),
    d.inputs.map((i) => el('input', { type: i.type, bus: i.bus, model: i.model }, aliasXml(i.alias))),
    consoleDevicesXml(d),
    d.watchdogs.map((w) => el('watchdog', { model: w.model, action: w.action }, aliasXml(w.alias))),
    d.rng !== undefined &&
      el(
        'rng',
        { model: d.rng.model },
        textEl('backend', d.rng.backend.source, { model: d.rng.backend.model }),
      ),
    (d.filesystems ?? []).map((f) =>
      el(
        'filesystem',
        { type: 'mount', accessmode: 'passthrough' },
        el('source', { socket: f.socket }),
        el('target', { dir: f.target }),
        el('driver', { type: 'virtiofs', queue: f.queue }),
      ),
    ),
    d.tpm !== undefined &&
      el(
        'tpm',
        { model: d.tpm.model },
        el('backend', {
          type: d.tpm.backend.type,
          version: d.tpm.backend.version,
          persistent_state: d.tpm.backend.persistentState,
        }),
      ),
    d.memory !== undefined && virtioMemXml(d.memory),
  );
}
