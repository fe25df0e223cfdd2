/**
 * The device-plugin resources a launcher Pod may request for GPUs and host devices (kubevirt
 * renderresources.go validatePermittedHostDevices, tag v1.6.2): the resourceName of each entry of the KubeVirt
 * CR's spec.configuration.permittedHostDevices (pciHostDevices, mediatedDevices, usb). Without that field
 * every device is permitted, as in KubeVirt; with it, any other device is refused with KubeVirt's message.
 * Only devices that become a resource request (a deviceName) are checked: a DRA device (a claim) requests none.
 */
import type { KubeVirt, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { KvError } from '../../kernel/errors/errors.ts';

const LISTS = ['pciHostDevices', 'mediatedDevices', 'usb'] as const;

type Spec = VirtualMachineInstance['spec'];

function field(obj: unknown, name: string): unknown {
  return typeof obj === 'object' && obj !== null
    ? (obj as Readonly<Record<string, unknown>>)[name]
    : undefined;
}

/** The permitted resource names, or undefined when the CR sets no permittedHostDevices (no check). */
export function permittedHostDevicesOf(kv: KubeVirt | undefined): ReadonlySet<string> | undefined {
  const permitted = field(kv?.spec.configuration, 'permittedHostDevices');
  if (typeof permitted !== 'object' || permitted === null) return undefined;
  const names = new Set<string>();
  for (const list of LISTS) {
    const entries = field(permitted, list);
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) {
      const name = field(entry, 'resourceName');
      if (typeof name === 'string') names.add(name);
    }
  }
  return names;
}

/** Throws KubeVirt's refusal when the spec asks for a device-plugin device the list does not permit. */
export function checkPermittedHostDevices(spec: Spec, permitted: ReadonlySet<string> | undefined): void {
  if (permitted === undefined) return;
  const refused = (kind: string, devices: readonly { deviceName?: string }[] | undefined): string[] =>
    (devices ?? []).flatMap(({ deviceName = '' }) =>
      deviceName === '' || permitted.has(deviceName)
        ? []
        : [`${kind} ${deviceName} is not permitted in permittedHostDevices configuration`],
    );
  const errors = [
    ...refused('GPU', spec.domain.devices.gpus),
    ...refused('HostDevice', spec.domain.devices.hostDevices),
  ];
  if (errors.length > 0) throw new KvError('KV_ERR_INVALID', errors.join(' '));
}
