/**
 * Controllers, in KubeVirt's order: USB (model none unless a USB input, disk or host device needs qemu-xhci;
 * always on arm64, never on s390x), virtio-scsi (for SCSI disks, and kept for hotplug unless disableHotplug),
 * and virtio-serial for the serial console. Runs after the disk, input and host device configurators: it looks
 * at what they added.
 */
import { busOf } from '../../kubevirt/index.ts';
import { configurator, virtioModel, type Configurator } from './configurator.ts';
import type { Controller, DomainSpec } from './domain-spec.ts';

function usbModel(domain: DomainSpec, arch: string): string {
  if (arch === 'arm64') return 'qemu-xhci';
  if (arch === 's390x') return 'none';
  const usbInput = domain.devices.inputs.some((i) => i.bus === 'usb');
  const usbDisk = domain.devices.disks.some((d) => d.device === 'disk' && d.target.bus === 'usb');
  const usbHostDevice = domain.devices.hostDevices.some((h) => h.type === 'usb');
  return usbInput || usbDisk || usbHostDevice ? 'qemu-xhci' : 'none';
}

export const controllersConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  const devices = vmi.spec.domain.devices;
  const controllers: Controller[] = [{ type: 'usb', index: 0, model: usbModel(domain, ctx.arch) }];
  const scsiDisk = (devices.disks ?? []).some((d) => busOf(d) === 'scsi');
  if (scsiDisk || devices.disableHotplug !== true) {
    controllers.push({
      type: 'scsi',
      index: 0,
      model: ctx.arch === 's390x' ? 'virtio-scsi' : virtioModel(vmi, ctx),
    });
  }
  if (devices.autoattachSerialConsole !== false) {
    controllers.push({ type: 'virtio-serial', index: 0, model: virtioModel(vmi, ctx) });
  }
  domain.devices.controllers.push(...controllers);
});
