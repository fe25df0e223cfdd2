/** spec.domain of a VMI: CPU, memory, resources, machine, firmware, clock, features and devices. */
import { s, type Infer } from '../schema/dsl.ts';
import { imagePullPolicy, machine, opaque, resourceList } from './common.ts';
import { devices } from './devices.ts';
import { clock, features } from './features.ts';

const cpu = s.object({
  cores: s.uint32(),
  sockets: s.uint32(),
  threads: s.uint32(),
  /** Upper bound of sockets for CPU hotplug. */
  maxSockets: s.uint32(),
  /** host-model (default), host-passthrough or a named model. */
  model: s.string(),
  features: s.array(s.object({ name: s.string().required(), policy: s.string() })),
  dedicatedCpuPlacement: s.bool(),
  isolateEmulatorThread: s.bool(),
  numa: s.object({ guestMappingPassthrough: s.empty() }),
  realtime: s.object({ mask: s.string() }),
});
export type Cpu = Infer<typeof cpu>;

const memory = s.object({
  /** Memory the guest sees; defaults to the memory request. */
  guest: s.quantity(),
  maxGuest: s.quantity(),
  hugepages: s.object({ pageSize: s.string() }),
});
export type Memory = Infer<typeof memory>;

const resources = s.object({
  requests: resourceList,
  limits: resourceList,
  overcommitGuestOverhead: s.bool(),
});

const kernelBoot = s.object({
  kernelArgs: s.string(),
  container: s.object({
    image: s.string().required(),
    imagePullSecret: s.string(),
    kernelPath: s.string(),
    initrdPath: s.string(),
    imagePullPolicy,
  }),
});

const firmware = s.object({
  uuid: s.string(),
  serial: s.string(),
  bootloader: s.object({
    bios: s.object({ useSerial: s.bool() }),
    efi: s.object({ secureBoot: s.bool(), persistent: s.bool() }),
  }),
  kernelBoot,
  acpi: s.object({ slicNameRef: s.string(), msdmNameRef: s.string() }),
});
export type Firmware = Infer<typeof firmware>;

const chassis = s.object({
  manufacturer: s.string(),
  version: s.string(),
  serial: s.string(),
  asset: s.string(),
  sku: s.string(),
});

export const domainSpec = s.object({
  resources,
  cpu,
  memory,
  machine,
  firmware,
  clock,
  features,
  devices: devices.required(),
  chassis,
  ioThreadsPolicy: s.enum(['shared', 'auto', 'supplementalPool']),
  ioThreads: s.object({ supplementalPoolThreadCount: s.uint32() }),
  /** AMD SEV settings (kept as sent). */
  launchSecurity: opaque,
});
