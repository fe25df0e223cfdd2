/**
 * The domain as libvirt XML, in KubeVirt's element order (api/schema.go DomainSpec): name, uuid, memory,
 * maxMemory, memoryBacking, os, sysinfo, devices, clock, metadata, features, cpu, vcpu, vcpus, iothreads.
 */
import { devicesXml } from './devices-xml.ts';
import type {
  Clock,
  Cpu,
  DomainSpec,
  Features,
  Hyperv,
  MemoryBacking,
  OnOff,
  Os,
  SysInfo,
  SysInfoEntry,
} from './domain-spec.ts';
import { el, renderXml, textEl, type XmlElement } from './xml.ts';

const KUBEVIRT_METADATA_NS = 'http://kubevirt.io';
const QEMU_NS = 'http://libvirt.org/schemas/domain/qemu/1.0';

/** hasSysinfo: libvirt refuses `<smbios mode="sysinfo">` when the domain has no `<sysinfo>` to take it from. */
function osXml(os: Os, hasSysinfo: boolean): XmlElement {
  return el(
    'os',
    {},
    textEl('type', 'hvm', { arch: os.type.arch, machine: os.type.machine }),
    hasSysinfo && os.smbiosMode !== undefined && el('smbios', { mode: os.smbiosMode }),
    os.bootMenu !== undefined &&
      el('bootmenu', { enable: os.bootMenu.enable, timeout: os.bootMenu.timeoutMs }),
    os.biosUseSerial === true && el('bios', { useserial: 'yes' }),
    os.loader !== undefined &&
      textEl('loader', os.loader.path, {
        readonly: os.loader.readonly,
        secure: os.loader.secure,
        type: os.loader.type,
      }),
    os.nvram !== undefined && textEl('nvram', os.nvram.path, { template: os.nvram.template }),
    os.kernel !== undefined && textEl('kernel', os.kernel),
    os.initrd !== undefined && textEl('initrd', os.initrd),
    os.cmdline !== undefined && textEl('cmdline', os.cmdline),
  );
}

function entries(group: string, list: readonly SysInfoEntry[]): XmlElement | undefined {
  if (list.length === 0) return undefined;
  return el(
    group,
    {},
    list.map((e) => textEl('entry', e.value, { name: e.name })),
  );
}

function sysinfoXml(s: SysInfo): XmlElement | undefined {
  if (s.system.length === 0 && s.chassis.length === 0) return undefined;
  return el('sysinfo', { type: 'smbios' }, entries('system', s.system), entries('chassis', s.chassis));
}

function clockXml(c: Clock | undefined): XmlElement | undefined {
  if (c === undefined) return undefined;
  return el(
    'clock',
    { offset: c.offset, timezone: c.timezone, adjustment: c.adjustment },
    c.timers.map((t) =>
      el('timer', { name: t.name, tickpolicy: t.tickPolicy, present: t.present, track: t.track }),
    ),
  );
}

function stateEl(name: string, state: OnOff | undefined): XmlElement | undefined {
  return state === undefined ? undefined : el(name, { state });
}

function hypervXml(h: Hyperv): XmlElement {
  return el(
    'hyperv',
    { mode: h.mode },
    stateEl('relaxed', h.relaxed),
    stateEl('vapic', h.vapic),
    h.spinlocks !== undefined && el('spinlocks', { state: h.spinlocks.state, retries: h.spinlocks.retries }),
    stateEl('vpindex', h.vpindex),
    stateEl('runtime', h.runtime),
    stateEl('synic', h.synic),
    h.stimer !== undefined && el('stimer', { state: h.stimer.state }, stateEl('direct', h.stimer.direct)),
    stateEl('reset', h.reset),
    h.vendorId !== undefined && el('vendor_id', { state: h.vendorId.state, value: h.vendorId.value }),
    stateEl('frequencies', h.frequencies),
    stateEl('reenlightenment', h.reenlightenment),
    stateEl('tlbflush', h.tlbflush),
    stateEl('ipi', h.ipi),
    stateEl('evmcs', h.evmcs),
  );
}

function featuresXml(f: Features | undefined): XmlElement | undefined {
  if (f === undefined) return undefined;
  return el(
    'features',
    {},
    f.acpi && el('acpi'),
    f.apic && el('apic'),
    f.hyperv !== undefined && hypervXml(f.hyperv),
    f.smm && el('smm'),
    f.kvmHidden !== undefined && el('kvm', {}, el('hidden', { state: f.kvmHidden })),
    stateEl('pvspinlock', f.pvspinlock),
    stateEl('vmport', f.vmport),
  );
}

function memoryBackingXml(b: MemoryBacking | undefined): XmlElement | undefined {
  if (b === undefined) return undefined;
  return el(
    'memoryBacking',
    {},
    b.hugepages === true && el('hugepages', {}),
    b.source !== undefined && el('source', { type: b.source }),
    b.access !== undefined && el('access', { mode: b.access }),
  );
}

function cpuXml(c: Cpu): XmlElement {
  return el(
    'cpu',
    { mode: c.mode },
    c.model !== undefined && textEl('model', c.model),
    c.features.map((f) => el('feature', { name: f.name, policy: f.policy })),
    el('topology', { sockets: c.topology.sockets, cores: c.topology.cores, threads: c.topology.threads }),
    c.numa !== undefined &&
      el(
        'numa',
        {},
        c.numa.map((n) => el('cell', { id: n.id, cpus: n.cpus, memory: n.memoryKiB, unit: 'KiB' })),
      ),
  );
}

function domainXmlTree(domainSpec: DomainSpec): XmlElement {
  const sysinfo = sysinfoXml(domainSpec.sysinfo);
  return el(
    'domain',
    { type: domainSpec.type, 'xmlns:qemu': QEMU_NS },
    textEl('name', domainSpec.name),
    domainSpec.uuid !== undefined && textEl('uuid', domainSpec.uuid),
    textEl('memory', domainSpec.memory, { unit: 'b' }),
    domainSpec.maxMemory !== undefined &&
      textEl('maxMemory', domainSpec.maxMemory.bytes, { unit: 'b', slots: domainSpec.maxMemory.slots }),
    memoryBackingXml(domainSpec.memoryBacking),
    osXml(domainSpec.os, sysinfo !== undefined),
    sysinfo,
    devicesXml(domainSpec.devices),
    clockXml(domainSpec.clock),
    el(
      'metadata',
      {},
      el(
        'kubevirt',
        { xmlns: KUBEVIRT_METADATA_NS },
        textEl('uid', domainSpec.metadata.uid),
        el('graceperiod', {}, textEl('deletionGracePeriodSeconds', domainSpec.metadata.gracePeriodSeconds)),
      ),
    ),
    featuresXml(domainSpec.features),
    cpuXml(domainSpec.cpu),
    textEl('vcpu', domainSpec.vcpu, { placement: 'static' }),
    domainSpec.vcpus !== undefined &&
      el(
        'vcpus',
        {},
        domainSpec.vcpus.map((v) =>
          el('vcpu', { id: v.id, enabled: v.enabled, hotpluggable: v.hotpluggable }),
        ),
      ),
    domainSpec.ioThreads !== undefined && textEl('iothreads', domainSpec.ioThreads),
  );
}

export function domainXml(d: DomainSpec): string {
  return renderXml(domainXmlTree(d));
}
