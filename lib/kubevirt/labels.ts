/**
 * Well-known kubevirt.io labels, annotations and finalizers, with the names roles use on the wire (the
 * rewriter renames them for storage). Wire-protocol constants, hence UPPER_SNAKE.
 */

export const APP_LABEL = 'kubevirt.io';

export const LABELS = {
  /** UID of the VMI a launcher pod belongs to. */
  CREATED_BY: 'kubevirt.io/created-by',
  /** Node a VMI runs on (CRDs have no field selectors, so the label stands in). */
  NODE_NAME: 'kubevirt.io/nodeName',
  MIGRATION_TARGET_NODE_NAME: 'kubevirt.io/migrationTargetNodeName',
  MIGRATION_JOB_UID: 'kubevirt.io/migrationJobUID',
  MIGRATION_NAME: 'kubevirt.io/migrationName',
  /** On migrations: the VMI name they migrate. */
  MIGRATION_SELECTOR: 'kubevirt.io/vmi-name',
  /** On VMIs created from a VM. */
  VM_NAME: 'vm.kubevirt.io/name',
  VIRTUAL_MACHINE: 'kubevirt.io/vm',
  NODE_SCHEDULABLE: 'kubevirt.io/schedulable',
  /** On nodes: whether the kubelet's CPU manager runs (for dedicated CPUs). */
  CPU_MANAGER: 'kubevirt.io/cpumanager',
  DEPRECATED_CPU_MANAGER: 'cpumanager',
  OUTDATED_LAUNCHER_IMAGE: 'kubevirt.io/outdatedLauncherImage',
  INSTALL_STRATEGY: 'kubevirt.io/install-strategy',
  MANAGED_BY: 'app.kubernetes.io/managed-by',
  COMPONENT: 'app.kubernetes.io/component',
  PART_OF: 'app.kubernetes.io/part-of',
  VERSION: 'app.kubernetes.io/version',
} as const;

export const LABEL_VALUES = {
  MANAGED_BY_OPERATOR: 'virt-operator',
  COMPONENT: 'kubevirt',
  /** Value of APP_LABEL on launcher pods. */
  LAUNCHER: 'virt-launcher',
  /** Value of APP_LABEL on hotplug attachment pods. */
  HOTPLUG_DISK: 'hotplug-disk',
  /** Value of APP_LABEL on the attachment pods of hotplugged DRA devices (this project's). */
  HOTPLUG_DEVICE: 'hotplug-device',
} as const;

export const ANNOTATIONS = {
  /** On launcher pods: the libvirt domain name (namespace_name). */
  DOMAIN: 'kubevirt.io/domain',
  MIGRATION_JOB_NAME: 'kubevirt.io/migrationJobName',
  /** On nodes: virt-handler's last heartbeat. */
  HANDLER_HEARTBEAT: 'kubevirt.io/heartbeat',
  CREATE_MIGRATION_TARGET: 'kubevirt.io/create-migration-target',
  EVACUATION_MIGRATION: 'kubevirt.io/evacuationMigration',
  WORKLOAD_UPDATE_MIGRATION: 'kubevirt.io/workloadUpdateMigration',
  /** On migrations: no backoff after failed evacuation or workload-update migrations (KubeVirt's functests). */
  IGNORE_MIGRATION_BACKOFF: 'kubevirt.io/func-test-ignore-migration-backoff',
  LATEST_OBSERVED_API_VERSION: 'kubevirt.io/latest-observed-api-version',
  STORAGE_OBSERVED_API_VERSION: 'kubevirt.io/storage-observed-api-version',
  VM_GENERATION: 'kubevirt.io/vm-generation',
  RESTORE_RUN_STRATEGY: 'kubevirt.io/restore-run-strategy',
  KEEP_LAUNCHER_ALIVE_AFTER_FAILURE: 'kubevirt.io/keep-launcher-alive-after-failure',
  LIBVIRT_LOG_FILTERS: 'kubevirt.io/libvirt-log-filters',
  MEMORY_DUMP: 'kubevirt.io/memory-dump',
  INSTALL_STRATEGY_VERSION: 'kubevirt.io/install-strategy-version',
  INSTALL_STRATEGY_REGISTRY: 'kubevirt.io/install-strategy-registry',
  INSTALL_STRATEGY_IDENTIFIER: 'kubevirt.io/install-strategy-identifier',
  CUSTOMIZER_IDENTIFIER: 'kubevirt.io/customizer-identifier',
  KUBEVIRT_GENERATION: 'kubevirt.io/generation',
  ALLOW_POD_BRIDGE_NETWORK_LIVE_MIGRATION: 'kubevirt.io/allow-pod-bridge-network-live-migration',
  /**
   * On VMIs, set by Deckhouse's controller (any value, usually ""): spec.domain.cpu.cores counts the guest's
   * sockets and cpu.sockets its cores per socket, so CPU hotplug grows the cores of every socket.
   */
  VCPU_TOPOLOGY_DYNAMIC_CORES: 'internal.virtualization.deckhouse.io/vcpu-topology-dynamic-cores',
  /** On VMIs, set by Deckhouse's controller: the share of each vCPU the launcher Pod requests, in percent. */
  CPU_RESOURCES_REQUESTS_FRACTION: 'internal.virtualization.deckhouse.io/cpu-resources-requests-fraction',
} as const;

export const FINALIZERS = {
  /** Set by the VMI controller so a VMI's deletion waits for its domain to stop. */
  VIRTUAL_MACHINE_INSTANCE: 'foregroundDeleteVirtualMachine',
  /** Set by the VM controller on its VMIs. */
  VIRTUAL_MACHINE_CONTROLLER: 'kubevirt.io/virtualMachineControllerFinalize',
  MIGRATION: 'kubevirt.io/migrationJobFinalize',
  OPERATOR_COMPONENT: 'kubevirt.io/virtOperatorFinalizer',
} as const;

/** Data key and value of a Start state-change request that starts the VMI paused. */
export const START_REQUEST_DATA_PAUSED = { KEY: 'paused', TRUE: 'true' } as const;
