/**
 * Memory hotplug of the running domain (kubevirt virtwrap/manager.go UpdateGuestMemory): the virtio-mem device
 * the converter put in the domain is asked to hold the VMI's guest memory beyond what it booted with
 * (status.memory.guestAtBoot). As KubeVirt does, the device goes back to libvirt as the running domain reports
 * it with only `<requested>` changed, live (virDomainUpdateDeviceFlags); the guest's driver then plugs the
 * blocks. A VMI without headroom (no memory.maxGuest), a guest memory beyond maxGuest or below the boot memory,
 * and a domain that has no virtio-mem device are refused naming the field.
 */
import { KvError } from '../kernel/errors/errors.ts';
import type { VirtualMachineInstance } from '../kubevirt/index.ts';
import { getDomainXml, updateDevice, type DomainRef, type LibvirtConnection } from '../libvirt/index.ts';
import { ConversionError, renderXml, virtioMemOf, type XmlElement } from './converter/index.ts';
import { child, children, parseXml, type XmlNode } from './xml-read.ts';

/** What the update needs of the DomainManager. */
export interface MemoryDomain {
  readonly conn: LibvirtConnection;
  require(): Promise<DomainRef>;
  checkIdentity(vmi: VirtualMachineInstance): void;
}

/** The bytes the virtio-mem device is to hold for this VMI (the converter's checks included). */
export function hotplugRequestedBytes(vmi: VirtualMachineInstance): number {
  const device = virtioMemOf(vmi);
  if (device === undefined) {
    throw new ConversionError(
      'spec.domain.memory.maxGuest',
      'the VMI was started without memory hotplug headroom: a new guest memory needs a restart',
    );
  }
  return device.requestedBytes;
}

const asElement = (n: XmlNode): XmlElement => ({
  name: n.name,
  attrs: Object.entries(n.attrs),
  ...(n.children.length === 0 && n.text !== '' && { text: n.text }),
  children: n.children.map(asElement),
});

/** The running domain's virtio-mem device as XML, asked to hold requestedBytes. Pure. */
export function virtioMemUpdateXml(domainXml: string, requestedBytes: number): string {
  const device = children(child(parseXml(domainXml), 'devices'), 'memory').find(
    (m) => m.attrs['model'] === 'virtio-mem',
  );
  const target = child(device, 'target');
  if (device === undefined || target === undefined) {
    throw new KvError(
      'KV_ERR_INVALID',
      'the domain has no virtio-mem device (it was started without memory hotplug): a restart adds it',
    );
  }
  const requested: XmlElement = {
    name: 'requested',
    attrs: [['unit', 'KiB']],
    text: String(Math.floor(requestedBytes / 1024)),
    children: [],
  };
  const kept = target.children.map((c) => (c.name === 'requested' ? requested : asElement(c)));
  const hasRequested = target.children.some((c) => c.name === 'requested');
  const newTarget: XmlElement = {
    ...asElement(target),
    children: hasRequested ? kept : [...kept, requested],
  };
  return renderXml({
    ...asElement(device),
    children: device.children.map((c) => (c === target ? newTarget : asElement(c))),
  });
}

/** Resizes the running domain's virtio-mem device to the VMI's guest memory; returns the bytes requested. */
export async function updateGuestMemory(m: MemoryDomain, vmi: VirtualMachineInstance): Promise<number> {
  m.checkIdentity(vmi);
  const requestedBytes = hotplugRequestedBytes(vmi);
  const ref = await m.require();
  const xml = virtioMemUpdateXml(await getDomainXml(m.conn, ref), requestedBytes);
  await updateDevice(m.conn, ref, xml, { live: true });
  return requestedBytes;
}
