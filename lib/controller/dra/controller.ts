/**
 * The DRA status controller (kubevirt watch/dra/dra.go DRAStatusController), keyed by VMI: for a VMI with DRA
 * GPUs or host devices that is not final or being deleted, it writes status.deviceStatus as its launcher Pod
 * and the attachment Pods of hotplugged claims, their ResourceClaims and the ResourceSlices imply (device-status.ts), as a merge patch with the
 * resourceVersion precondition, only when it changed. An allocated device without an attribute to attach it by
 * gets a Warning event, which names the attributes looked for, with the write that records it.
 */
import { hasDraDevices, isAttachable, VIRTUAL_MACHINE_INSTANCES } from '../../kubevirt/index.ts';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { EventRecorder } from '../../kernel/controller/events.ts';
import { deepEqual, mergeDiff, mergePatch } from '../../kernel/controller/merge-patch.ts';
import type { ReconcileResult } from '../../kernel/controller/runner.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import type { KubeClient } from '../../kernel/kube/types.ts';
import type { ResourceClaim, ResourceSlice } from '../../kubevirt/core/dra.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { isFinal } from '../../kubevirt/vmi-state.ts';
import { currentPod } from '../vmi/controller.ts';
import { HOTPLUG_DEVICE } from '../vmi/device-attachment.ts';
import { attachmentPodsOfLauncher, podsOfVmi } from '../vmi/indexers.ts';
import {
  computeDeviceStatus,
  type DeviceStatus,
  type DraLookups,
  MDEV_UUID_ATTRIBUTE,
  PCI_BUS_ID_ATTRIBUTE,
  USB_BUS_ATTRIBUTE,
  USB_DEVICE_NUMBER_ATTRIBUTE,
} from './device-status.ts';
import { BY_DRIVER_POOL } from './handlers.ts';

export interface DraStatusControllerOptions {
  client: KubeClient;
  vmis: StoreReader<VirtualMachineInstance>;
  pods: StoreReader<Pod>;
  claims: StoreReader<ResourceClaim>;
  /** Indexed by BY_DRIVER_POOL. */
  slices: StoreReader<ResourceSlice>;
  recorder: EventRecorder;
}

const ATTRIBUTES_LOOKED_FOR =
  `${PCI_BUS_ID_ATTRIBUTE}, ${MDEV_UUID_ATTRIBUTE} or ` +
  `${USB_BUS_ATTRIBUTE} and ${USB_DEVICE_NUMBER_ATTRIBUTE}`;

export class DraStatusController {
  private readonly lookups: DraLookups;

  constructor(private readonly o: DraStatusControllerOptions) {
    this.lookups = {
      claim: (ns, name): ResourceClaim | undefined => o.claims.get(`${ns}/${name}`),
      slices: (driver, pool): ResourceSlice[] => o.slices.byIndex(BY_DRIVER_POOL, `${driver}/${pool}`),
    };
  }

  readonly reconcile = async (key: string): Promise<ReconcileResult> => {
    const vmi = this.o.vmis.get(key);
    if (vmi === undefined || vmi.metadata.deletionTimestamp !== undefined || isFinal(vmi)) return;
    if (!hasDraDevices(vmi)) return;
    const pod = currentPod(vmi, podsOfVmi(this.o.pods, vmi));
    if (pod === undefined) return;
    const devicePods = attachmentPodsOfLauncher(this.o.pods, pod, HOTPLUG_DEVICE);
    const status = computeDeviceStatus(vmi, { launcher: pod, devicePods }, this.lookups);
    if (status === undefined || deepEqual(status, vmi.status?.deviceStatus ?? {})) return;
    await mergePatch(this.o.client, VIRTUAL_MACHINE_INSTANCES, {
      obj: vmi,
      patch: { status: { deviceStatus: mergeDiff(vmi.status?.deviceStatus ?? {}, status) } },
    });
    this.warnUnattachable(vmi, status);
  };

  private warnUnattachable(vmi: VirtualMachineInstance, status: DeviceStatus): void {
    for (const s of [...(status.gpuStatuses ?? []), ...(status.hostDeviceStatuses ?? [])]) {
      const c = s.deviceResourceClaimStatus;
      if (c?.name === undefined || isAttachable(s)) continue;
      this.o.recorder.event(
        vmi,
        'Warning',
        'DRADeviceNotAttachable',
        `device ${c.name} allocated for ${s.name} in ResourceClaim ${c.resourceClaimName ?? ''} has none of the ` +
          `attributes the domain attaches a device by (${ATTRIBUTES_LOOKED_FOR})`,
      );
    }
  }
}
