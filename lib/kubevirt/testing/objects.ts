/**
 * Whole objects as read from the API (names, namespaces, uids, owner references), from option builders:
 * vm(withStrategy('Always'), withStartRequest()), vmi(withPhase('Running'), onSpec(withDisk(...))),
 * pod(withPodPhase('Running')). The spec options of ./builders.ts apply through onSpec: one library.
 */
import { FINALIZERS } from '../index.ts';
import type {
  RunStrategy,
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineInstanceCondition,
  VirtualMachineInstancePhase,
} from '../index.ts';
import type { ContainerStatus, Pod, PodCondition } from '../core/pod.ts';
import type { SpecOption } from './builders.ts';

export const NS = 'default';
const VM_NAME = 'testvm';
const VM_UID = 'vm-uid-1';
export const VMI_UID = 'vmi-uid-1';
export const T0 = Date.parse('2026-01-01T00:00:00Z');

export type Option<T> = (obj: T) => void;

/** Applies spec options (./builders.ts) to a VMI, or to a VM's template. */
export const onSpec =
  (...opts: SpecOption[]): Option<VirtualMachineInstance | VirtualMachine> =>
  (obj) => {
    const spec = 'template' in obj.spec ? obj.spec.template.spec : obj.spec;
    for (const o of opts) o(spec);
  };

export function vm(...opts: Option<VirtualMachine>[]): VirtualMachine {
  const out: VirtualMachine = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: {
      name: VM_NAME,
      namespace: NS,
      uid: VM_UID,
      generation: 1,
      resourceVersion: '10',
      finalizers: [FINALIZERS.VIRTUAL_MACHINE_CONTROLLER],
    },
    spec: {
      runStrategy: 'Always',
      template: {
        metadata: { labels: { app: 'demo' } },
        spec: { domain: { devices: {}, resources: { requests: { memory: '1Gi' } } } },
      },
    },
  };
  for (const o of opts) o(out);
  return out;
}

export const withStrategy =
  (s: RunStrategy): Option<VirtualMachine> =>
  (v) => {
    v.spec.runStrategy = s;
  };

export const withStatusStrategy =
  (s: RunStrategy): Option<VirtualMachine> =>
  (v) => {
    (v.status ??= {}).runStrategy = s;
  };

export const withStartRequest =
  (data?: Record<string, string>): Option<VirtualMachine> =>
  (v) => {
    ((v.status ??= {}).stateChangeRequests ??= []).push({ action: 'Start', ...(data && { data }) });
  };

export const withStopRequest =
  (uid: string = VMI_UID): Option<VirtualMachine> =>
  (v) => {
    ((v.status ??= {}).stateChangeRequests ??= []).push({ action: 'Stop', uid });
  };

export const withStartFailure =
  (count: number, retryAfterMs: number, lastUid = 'old-vmi'): Option<VirtualMachine> =>
  (v) => {
    (v.status ??= {}).startFailure = {
      consecutiveFailCount: count,
      lastFailedVMIUID: lastUid,
      retryAfterTimestamp: new Date(retryAfterMs).toISOString().replace('.000Z', 'Z'),
    };
  };

export const vmDeleting: Option<VirtualMachine> = (v) => {
  v.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
};

export const withoutVmFinalizer: Option<VirtualMachine> = (v) => {
  delete v.metadata.finalizers;
};

export const withVmCondition =
  (type: string, status: 'True' | 'False', reason?: string): Option<VirtualMachine> =>
  (v) => {
    ((v.status ??= {}).conditions ??= []).push({ type, status, ...(reason && { reason }) });
  };

export function vmi(...opts: Option<VirtualMachineInstance>[]): VirtualMachineInstance {
  const out: VirtualMachineInstance = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: {
      name: VM_NAME,
      namespace: NS,
      uid: VMI_UID,
      resourceVersion: '20',
      creationTimestamp: '2026-01-01T00:00:00Z',
      ownerReferences: [
        {
          apiVersion: 'kubevirt.io/v1',
          kind: 'VirtualMachine',
          name: VM_NAME,
          uid: VM_UID,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: { domain: { devices: {}, resources: { requests: { memory: '1Gi' } } } },
  };
  for (const o of opts) o(out);
  return out;
}

export const withPhase =
  (
    phase: VirtualMachineInstancePhase,
    ...history: VirtualMachineInstancePhase[]
  ): Option<VirtualMachineInstance> =>
  (v) => {
    const status = (v.status ??= {});
    status.phase = phase;
    status.phaseTransitionTimestamps = [...history, phase].map((p) => ({
      phase: p,
      phaseTransitionTimestamp: '2026-01-01T00:00:00Z',
    }));
  };

export const withVmiCondition =
  (
    type: string,
    status: 'True' | 'False',
    reason?: string,
    message?: string,
  ): Option<VirtualMachineInstance> =>
  (v) => {
    const c: VirtualMachineInstanceCondition = {
      type,
      status,
      ...(reason && { reason }),
      ...(message && { message }),
    };
    ((v.status ??= {}).conditions ??= []).push(c);
  };

export const vmiDeleting: Option<VirtualMachineInstance> = (v) => {
  v.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
};

export const withVmiUid =
  (uid: string): Option<VirtualMachineInstance> =>
  (v) => {
    v.metadata.uid = uid;
  };

export const withMigration =
  (start: string, end?: string): Option<VirtualMachineInstance> =>
  (v) => {
    (v.status ??= {}).migrationState = { startTimestamp: start, ...(end && { endTimestamp: end }) };
  };

export function pod(...opts: Option<Pod>[]): Pod {
  const out: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'virt-launcher-testvm-abcde',
      namespace: NS,
      uid: 'pod-uid-1',
      resourceVersion: '30',
      creationTimestamp: '2026-01-01T00:00:01Z',
      labels: { 'kubevirt.io': 'virt-launcher', 'kubevirt.io/created-by': VMI_UID },
      ownerReferences: [
        {
          apiVersion: 'kubevirt.io/v1',
          kind: 'VirtualMachineInstance',
          name: VM_NAME,
          uid: VMI_UID,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: { containers: [{ name: 'compute', image: 'virt:test' }] },
    status: { phase: 'Pending' },
  };
  for (const o of opts) o(out);
  return out;
}

export const withPodPhase =
  (phase: NonNullable<NonNullable<Pod['status']>['phase']>): Option<Pod> =>
  (p) => {
    (p.status ??= {}).phase = phase;
  };

export const withPodCondition =
  (c: PodCondition): Option<Pod> =>
  (p) => {
    ((p.status ??= {}).conditions ??= []).push(c);
  };

export const withContainer =
  (cs: ContainerStatus): Option<Pod> =>
  (p) => {
    ((p.status ??= {}).containerStatuses ??= []).push(cs);
  };

export const onNode =
  (node: string): Option<Pod> =>
  (p) => {
    p.spec.nodeName = node;
  };

export const podDeleting: Option<Pod> = (p) => {
  p.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
};

/** A launcher Pod handed to a node: Running, compute started, PodScheduled and Ready true. */
export const podReady =
  (node = 'node1'): Option<Pod> =>
  (p) => {
    onNode(node)(p);
    withPodPhase('Running')(p);
    withContainer({ name: 'compute', ready: false, image: 'virt:test', state: { running: {} } })(p);
    withPodCondition({ type: 'PodScheduled', status: 'True' })(p);
    withPodCondition({ type: 'Ready', status: 'True' })(p);
  };
