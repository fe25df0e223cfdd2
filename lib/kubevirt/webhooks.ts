/**
 * The admission webhooks KubeVirt registers for the kubevirt.io resources this project serves, by path
 * (kubevirt pkg/virt-operator/resource/generate/components/webhooks.go): what each admits, who serves it and
 * how it is registered. The api serves the VM, VMI and migration webhooks and the pod eviction interceptors, the
 * operator the KubeVirt CR's (as virt-api and virt-operator do); the operator's webhook configurations
 * (lib/operator/generate/webhooks) read the rest from here. The resources are
 * the kubevirt.io names; a cluster that stores them renamed registers their internal twins (internal-gvr.ts).
 * Pods keep their names.
 */
import { PODS } from '../kernel/kube/resources.ts';
import type { GroupVersionResource } from '../kernel/kube/types.ts';
import {
  KUBEVIRTS,
  VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from './gvr.ts';

export type AdmissionKind = 'validating' | 'mutating';
/** The role whose webhook server answers a path. */
type WebhookServer = 'api' | 'operator';
/** '*': every operation. */
type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | '*';

/** A CEL condition the API server checks before it calls the webhook. */
interface MatchCondition {
  readonly name: string;
  readonly expression: string;
}

export interface Webhook {
  /** The webhook's name in its configuration. */
  readonly name: string;
  readonly path: string;
  readonly admission: AdmissionKind;
  readonly resource: GroupVersionResource;
  /** The subresource the rule names with the resource ('eviction': pods/eviction). */
  readonly subresource?: string;
  readonly operations: readonly AdmissionOperation[];
  /** Absent: the API server calls for every object of the rule. */
  readonly matchConditions?: readonly MatchCondition[];
  /** NoneOnDryRun: the admitter writes to the cluster except for a dry run; absent: None. */
  readonly sideEffects?: 'NoneOnDryRun';
  readonly server: WebhookServer;
  /** False for a path that is served but that no configuration names. */
  readonly registered: boolean;
}

/**
 * The common name of the client certificate kube-apiserver shows the webhooks it calls (from its admission
 * configuration): what the local cluster's certificate carries and the webhook proxy expects by default.
 */
export const APISERVER_WEBHOOK_CLIENT_CN = 'kube-apiserver-webhook-client';

const CREATE_UPDATE: readonly AdmissionOperation[] = ['CREATE', 'UPDATE'];
const POD_EVICTION_PATH = '/pod-eviction-validate';

/**
 * Each webhook by the name the code uses; within a kind, in the order of its configuration. The KubeVirt CR's
 * are virt-operator's in KubeVirt; the operator restores their reviews from the stored names itself (no webhook
 * proxy in front of it), so all three are registered, create too (as Deckhouse registers them).
 */
export const WEBHOOKS = {
  vmMutate: {
    name: 'virtualmachines-mutator.kubevirt.io',
    path: '/virtualmachines-mutate',
    admission: 'mutating',
    resource: VIRTUAL_MACHINES,
    operations: CREATE_UPDATE,
    server: 'api',
    registered: true,
  },
  vmiMutate: {
    name: 'virtualmachineinstances-mutator.kubevirt.io',
    path: '/virtualmachineinstances-mutate',
    admission: 'mutating',
    resource: VIRTUAL_MACHINE_INSTANCES,
    operations: CREATE_UPDATE,
    server: 'api',
    registered: true,
  },
  migrationMutateCreate: {
    name: 'migrations-mutator.kubevirt.io',
    path: '/migration-mutate-create',
    admission: 'mutating',
    resource: VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
    operations: ['CREATE'],
    server: 'api',
    registered: true,
  },
  /**
   * KubeVirt's two eviction interceptors: one path, one for launcher Pods and one for hotplug-disk Pods, each
   * called only for its Pods' names (kube-apiserver 1.30 and later honour matchConditions).
   */
  podEvictionLauncher: {
    name: 'virt-launcher-eviction-interceptor.kubevirt.io',
    path: POD_EVICTION_PATH,
    admission: 'validating',
    resource: PODS,
    subresource: 'eviction',
    operations: ['*'],
    matchConditions: [{ name: 'only-vms', expression: 'object.metadata.name.startsWith("virt-launcher")' }],
    sideEffects: 'NoneOnDryRun',
    server: 'api',
    registered: true,
  },
  podEvictionHotplug: {
    name: 'hotplug-pod-eviction-interceptor.kubevirt.io',
    path: POD_EVICTION_PATH,
    admission: 'validating',
    resource: PODS,
    subresource: 'eviction',
    operations: ['*'],
    matchConditions: [
      { name: 'only-hotplug-pods', expression: 'object.metadata.name.startsWith("hp-volume-")' },
    ],
    sideEffects: 'NoneOnDryRun',
    server: 'api',
    registered: true,
  },
  vmValidate: {
    name: 'virtualmachine-validator.kubevirt.io',
    path: '/virtualmachines-validate',
    admission: 'validating',
    resource: VIRTUAL_MACHINES,
    operations: CREATE_UPDATE,
    server: 'api',
    registered: true,
  },
  vmiValidateCreate: {
    name: 'virtualmachineinstances-create-validator.kubevirt.io',
    path: '/virtualmachineinstances-validate-create',
    admission: 'validating',
    resource: VIRTUAL_MACHINE_INSTANCES,
    operations: ['CREATE'],
    server: 'api',
    registered: true,
  },
  vmiValidateUpdate: {
    name: 'virtualmachineinstances-update-validator.kubevirt.io',
    path: '/virtualmachineinstances-validate-update',
    admission: 'validating',
    resource: VIRTUAL_MACHINE_INSTANCES,
    operations: ['UPDATE'],
    server: 'api',
    registered: true,
  },
  migrationValidateCreate: {
    name: 'migration-create-validator.kubevirt.io',
    path: '/migration-validate-create',
    admission: 'validating',
    resource: VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
    operations: ['CREATE'],
    server: 'api',
    registered: true,
  },
  migrationValidateUpdate: {
    name: 'migration-update-validator.kubevirt.io',
    path: '/migration-validate-update',
    admission: 'validating',
    resource: VIRTUAL_MACHINE_INSTANCE_MIGRATIONS,
    operations: ['UPDATE'],
    server: 'api',
    registered: true,
  },
  kubevirtValidateCreate: {
    name: 'kubevirt-create-validator.kubevirt.io',
    path: '/kubevirt-validate-create',
    admission: 'validating',
    resource: KUBEVIRTS,
    operations: ['CREATE'],
    server: 'operator',
    registered: true,
  },
  kubevirtValidateUpdate: {
    name: 'kubevirt-update-validator.kubevirt.io',
    path: '/kubevirt-validate-update',
    admission: 'validating',
    resource: KUBEVIRTS,
    operations: ['UPDATE'],
    server: 'operator',
    registered: true,
  },
  kubevirtValidateDelete: {
    name: 'kubevirt-validator.kubevirt.io',
    path: '/kubevirt-validate-delete',
    admission: 'validating',
    resource: KUBEVIRTS,
    operations: ['DELETE'],
    server: 'operator',
    registered: true,
  },
} as const satisfies Readonly<Record<string, Webhook>>;

/** The webhooks this role serves. */
export function webhooksServedBy(server: WebhookServer): readonly Webhook[] {
  return Object.values<Webhook>(WEBHOOKS).filter((w) => w.server === server);
}

/** The webhooks a configuration of this kind registers, in order. */
export function registeredWebhooks(admission: AdmissionKind): readonly Webhook[] {
  return Object.values<Webhook>(WEBHOOKS).filter((w) => w.registered && w.admission === admission);
}
