/** Disks of domain.devices.disks: the device a volume is attached as (disk, lun or cdrom) and its options. */
import { s, type Infer } from '../schema/dsl.ts';

const diskBus = s.enum(['virtio', 'sata', 'scsi', 'usb']);
export type DiskBus = Infer<typeof diskBus>;

const driverCache = s.enum(['none', 'writethrough', 'writeback']);
export type DriverCache = Infer<typeof driverCache>;

const driverIo = s.enum(['threads', 'native']);

const diskErrorPolicy = s.enum(['stop', 'ignore', 'report', 'enospace']);

const trayState = s.enum(['open', 'closed']);

const diskTarget = s.object({
  bus: diskBus,
  readonly: s.bool(),
  /** Guest PCI address, e.g. 0000:81:01.10. */
  pciAddress: s.string(),
});

const lunTarget = s.object({
  bus: diskBus,
  readonly: s.bool(),
  /** SCSI persistent reservation (pr-helper). */
  reservation: s.bool(),
});

const cdromTarget = s.object({
  bus: diskBus,
  /** KubeVirt defaults it to true. */
  readonly: s.bool(),
  tray: trayState,
});

const blockSize = s.object({
  custom: s.object({ logical: s.uint().required(), physical: s.uint().required() }),
  matchVolume: s.object({ enabled: s.bool() }),
});

export const disk = s.object({
  name: s.string().required(),
  disk: diskTarget,
  lun: lunTarget,
  cdrom: cdromTarget,
  bootOrder: s.uint(),
  serial: s.string(),
  dedicatedIOThread: s.bool(),
  cache: driverCache,
  io: driverIo,
  tag: s.string(),
  blockSize,
  shareable: s.bool(),
  errorPolicy: diskErrorPolicy,
});
export type Disk = Infer<typeof disk>;
