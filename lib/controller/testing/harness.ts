/** Stores, a recording client, a fake clock and an event recorder wired to a controller, for unit tests. */
import type { KubeVirt, VirtualMachine, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { FakeClock } from '../../kernel/clock.ts';
import type { ReconcileContext } from '../../kernel/controller/runner.ts';
import { Store } from '../../kernel/informer/store.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import { MemoryRecorder } from '../../kernel/controller/events.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { PersistentVolumeClaim } from '../../kubevirt/core/pvc.ts';
import { VmiController, type VmiControllerOptions } from '../vmi/controller.ts';
import { BY_CLAIM, vmiClaimIndex, vmiIndexers } from '../vmi/indexers.ts';
import { RecordingClient } from '../../kernel/kube/testing/recording-client.ts';
import { T0 } from '../../kubevirt/testing/objects.ts';

export interface Harness {
  client: RecordingClient;
  clock: FakeClock;
  recorder: MemoryRecorder;
  vms: Store<VirtualMachine>;
  vmis: Store<VirtualMachineInstance>;
  pods: Store<Pod>;
  pvcs: Store<PersistentVolumeClaim>;
  kubevirts: Store<KubeVirt>;
  ctx: ReconcileContext;
}

export function harness(): Harness {
  return {
    client: new RecordingClient(),
    clock: new FakeClock(T0),
    recorder: new MemoryRecorder(),
    vms: new Store<VirtualMachine>({ freeze: true }),
    vmis: new Store<VirtualMachineInstance>({ freeze: true, indexers: { [BY_CLAIM]: vmiClaimIndex } }),
    pods: new Store<Pod>({ freeze: true, indexers: vmiIndexers }),
    pvcs: new Store<PersistentVolumeClaim>({ freeze: true }),
    kubevirts: new Store<KubeVirt>({ freeze: true }),
    ctx: { log: nopLogger, reconcileID: 'test' },
  };
}

/** A VMI controller over the harness's stores and client (launcher image virt:test). */
export function vmiController(harness: Harness, extra: Partial<VmiControllerOptions> = {}): VmiController {
  return new VmiController({
    client: harness.client,
    vmis: harness.vmis,
    pods: harness.pods,
    vms: harness.vms,
    pvcs: harness.pvcs,
    kubevirts: harness.kubevirts,
    clock: harness.clock,
    recorder: harness.recorder,
    launcher: { image: 'virt:test' },
    ...extra,
  });
}
