/**
 * One device alone, as libvirt's attach takes it (kubevirt virtwrap/manager.go renders each hotplugged disk and
 * host device on its own before AttachDeviceFlags): the element the domain XML has for it, rendered by the same
 * `<devices>` code.
 */
import { KvError } from '../../kernel/errors/errors.ts';
import {
  devicesXml,
  emptyDevices,
  renderXml,
  type Devices,
  type Disk,
  type HostDevice,
} from '../converter/index.ts';

/** The only element `<devices>` renders for these devices. */
function onlyDeviceXml(devices: Partial<Devices>, what: string): string {
  const rendered = devicesXml({ ...emptyDevices(), ...devices }).children;
  const [element] = rendered;
  if (element === undefined || rendered.length !== 1) {
    throw new KvError('KV_ERR_INTERNAL', `${String(rendered.length)} elements rendered for one ${what}`);
  }
  return renderXml(element);
}

/** `<disk>` alone. */
export function diskDeviceXml(d: Disk): string {
  return onlyDeviceXml({ disks: [d] }, 'disk');
}

/** `<hostdev>` alone. */
export function hostDeviceXml(h: HostDevice): string {
  return onlyDeviceXml({ hostDevices: [h] }, 'host device');
}
