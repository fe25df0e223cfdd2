/**
 * Enum values of libvirt's public API (libvirt 9.0 headers: libvirt-domain.h, libvirt-qemu.h, virterror.h),
 * as data. Numbers are wire values; names are libvirt's enum suffixes in lower case where they are shown to
 * callers (states, reasons, event details) and in upper case where callers pass them (flags, codes).
 * Generated once from libvirt-dev's libvirt-api.xml; edit by hand only to add values.
 */
export const DOMAIN_STATES = [
  'nostate',
  'running',
  'blocked',
  'paused',
  'shutdown',
  'shutoff',
  'crashed',
  'pmsuspended',
] as const;
export type DomainStateName = (typeof DOMAIN_STATES)[number];

/** Reason names by state, indexed by the reason number (virDomain<State>Reason). */
export const DOMAIN_STATE_REASONS: Readonly<Record<DomainStateName, readonly string[]>> = {
  nostate: ['unknown'],
  running: [
    'unknown',
    'booted',
    'migrated',
    'restored',
    'from_snapshot',
    'unpaused',
    'migration_canceled',
    'save_canceled',
    'wakeup',
    'crashed',
    'postcopy',
    'postcopy_failed',
  ],
  blocked: ['unknown'],
  paused: [
    'unknown',
    'user',
    'migration',
    'save',
    'dump',
    'ioerror',
    'watchdog',
    'from_snapshot',
    'shutting_down',
    'snapshot',
    'crashed',
    'starting_up',
    'postcopy',
    'postcopy_failed',
  ],
  shutdown: ['unknown', 'user'],
  shutoff: [
    'unknown',
    'shutdown',
    'destroyed',
    'crashed',
    'migrated',
    'saved',
    'failed',
    'from_snapshot',
    'daemon',
  ],
  crashed: ['unknown', 'panicked'],
  pmsuspended: ['unknown'],
};

export const DOMAIN_EVENT_TYPES = [
  'defined',
  'undefined',
  'started',
  'suspended',
  'resumed',
  'stopped',
  'shutdown',
  'pmsuspended',
  'crashed',
] as const;
export type DomainEventTypeName = (typeof DOMAIN_EVENT_TYPES)[number];

/** Lifecycle event detail names by event type, indexed by the detail number (virDomainEvent<Type>DetailType). */
export const DOMAIN_EVENT_DETAILS: Readonly<Record<DomainEventTypeName, readonly string[]>> = {
  defined: ['added', 'updated', 'renamed', 'from_snapshot'],
  undefined: ['removed', 'renamed'],
  started: ['booted', 'migrated', 'restored', 'from_snapshot', 'wakeup'],
  suspended: [
    'paused',
    'migrated',
    'ioerror',
    'watchdog',
    'restored',
    'from_snapshot',
    'api_error',
    'postcopy',
    'postcopy_failed',
  ],
  resumed: ['unpaused', 'migrated', 'from_snapshot', 'postcopy', 'postcopy_failed'],
  stopped: ['shutdown', 'destroyed', 'crashed', 'migrated', 'saved', 'failed', 'from_snapshot'],
  shutdown: ['finished', 'guest', 'host'],
  pmsuspended: ['memory', 'disk'],
  crashed: ['panicked', 'crashloaded'],
};

/** virConnectDomainEventAgentLifecycleState (1-based). */
export const AGENT_LIFECYCLE_STATES: Readonly<Record<number, 'connected' | 'disconnected'>> = {
  1: 'connected',
  2: 'disconnected',
};
export const AGENT_LIFECYCLE_REASONS = ['unknown', 'domain_started', 'channel'] as const;

/** virDomainEventID. */
export const DOMAIN_EVENT_ID = {
  LIFECYCLE: 0,
  REBOOT: 1,
  RTC_CHANGE: 2,
  WATCHDOG: 3,
  IO_ERROR: 4,
  GRAPHICS: 5,
  IO_ERROR_REASON: 6,
  CONTROL_ERROR: 7,
  BLOCK_JOB: 8,
  DISK_CHANGE: 9,
  TRAY_CHANGE: 10,
  PMWAKEUP: 11,
  PMSUSPEND: 12,
  BALLOON_CHANGE: 13,
  PMSUSPEND_DISK: 14,
  DEVICE_REMOVED: 15,
  BLOCK_JOB_2: 16,
  TUNABLE: 17,
  AGENT_LIFECYCLE: 18,
  DEVICE_ADDED: 19,
  MIGRATION_ITERATION: 20,
  JOB_COMPLETED: 21,
  DEVICE_REMOVAL_FAILED: 22,
  METADATA_CHANGE: 23,
  BLOCK_THRESHOLD: 24,
  MEMORY_FAILURE: 25,
  MEMORY_DEVICE_SIZE_CHANGE: 26,
} as const;

/** virDomainCreateFlags. */
export const DOMAIN_START = {
  PAUSED: 1,
  AUTODESTROY: 2,
  BYPASS_CACHE: 4,
  FORCE_BOOT: 8,
  VALIDATE: 16,
  RESET_NVRAM: 32,
} as const;

/** virDomainDefineFlags. */
export const DOMAIN_DEFINE = {
  VALIDATE: 1,
} as const;

/** virDomainUndefineFlagsValues. */
export const DOMAIN_UNDEFINE = {
  MANAGED_SAVE: 1,
  SNAPSHOTS_METADATA: 2,
  NVRAM: 4,
  KEEP_NVRAM: 8,
  CHECKPOINTS_METADATA: 16,
  TPM: 32,
  KEEP_TPM: 64,
} as const;

/** virDomainModificationImpact. */
export const DOMAIN_AFFECT = {
  CURRENT: 0,
  LIVE: 1,
  CONFIG: 2,
} as const;

/** virDomainVcpuFlags: which count setVcpusFlags/getVcpusFlags act on. */
export const DOMAIN_VCPU = {
  CURRENT: 0,
  LIVE: 1,
  CONFIG: 2,
  MAXIMUM: 4,
  GUEST: 8,
  HOTPLUGGABLE: 16,
} as const;

/** virDomainXMLFlags. */
export const DOMAIN_XML = {
  SECURE: 1,
  INACTIVE: 2,
  UPDATE_CPU: 4,
  MIGRATABLE: 8,
} as const;

/** virDomainDestroyFlagsValues. */
export const DOMAIN_DESTROY = {
  DEFAULT: 0,
  GRACEFUL: 1,
  REMOVE_LOGS: 2,
} as const;

/** virDomainShutdownFlagValues. */
export const DOMAIN_SHUTDOWN = {
  DEFAULT: 0,
  ACPI_POWER_BTN: 1,
  GUEST_AGENT: 2,
  INITCTL: 4,
  SIGNAL: 8,
  PARAVIRT: 16,
} as const;

/** virDomainRebootFlagValues. */
export const DOMAIN_REBOOT = {
  DEFAULT: 0,
  ACPI_POWER_BTN: 1,
  GUEST_AGENT: 2,
  INITCTL: 4,
  SIGNAL: 8,
  PARAVIRT: 16,
} as const;

/** virDomainStatsTypes. */
export const DOMAIN_STATS = {
  STATE: 1,
  CPU_TOTAL: 2,
  BALLOON: 4,
  VCPU: 8,
  INTERFACE: 16,
  BLOCK: 32,
  PERF: 64,
  IOTHREAD: 128,
  MEMORY: 256,
  DIRTYRATE: 512,
  VM: 1024,
} as const;

/** virConnectListAllDomainsFlags. */
export const LIST_DOMAINS = {
  ACTIVE: 1,
  INACTIVE: 2,
  PERSISTENT: 4,
  TRANSIENT: 8,
  RUNNING: 16,
  PAUSED: 32,
  SHUTOFF: 64,
  OTHER: 128,
  MANAGEDSAVE: 256,
  NO_MANAGEDSAVE: 512,
  AUTOSTART: 1024,
  NO_AUTOSTART: 2048,
  HAS_SNAPSHOT: 4096,
  NO_SNAPSHOT: 8192,
  HAS_CHECKPOINT: 16384,
  NO_CHECKPOINT: 32768,
} as const;

/** virDomainGuestInfoTypes. */
export const GUEST_INFO = {
  USERS: 1,
  OS: 2,
  TIMEZONE: 4,
  HOSTNAME: 8,
  FILESYSTEM: 16,
  DISKS: 32,
  INTERFACES: 64,
} as const;

/** virTypedParameterType. */
export const TYPED_PARAM = {
  INT: 1,
  UINT: 2,
  LLONG: 3,
  ULLONG: 4,
  DOUBLE: 5,
  BOOLEAN: 6,
  STRING: 7,
} as const;

/** virDomainAgentResponseTimeoutValues (seconds otherwise). */
export const AGENT_RESPONSE_TIMEOUT = {
  BLOCK: -2,
  DEFAULT: -1,
  NOWAIT: 0,
} as const;

/** Internal driver features asked with CONNECT_SUPPORTS_FEATURE (libvirt_internal.h). */
export const DRV_FEATURE = {
  PROGRAM_KEEPALIVE: 10,
  REMOTE_EVENT_CALLBACK: 14,
} as const;

/** virDomainMigrateFlags. */
export const MIGRATE = {
  LIVE: 1,
  PEER2PEER: 2,
  TUNNELLED: 4,
  PERSIST_DEST: 8,
  UNDEFINE_SOURCE: 16,
  PAUSED: 32,
  NON_SHARED_DISK: 64,
  NON_SHARED_INC: 128,
  CHANGE_PROTECTION: 256,
  UNSAFE: 512,
  OFFLINE: 1024,
  COMPRESSED: 2048,
  ABORT_ON_ERROR: 4096,
  AUTO_CONVERGE: 8192,
  RDMA_PIN_ALL: 16384,
  POSTCOPY: 32768,
  TLS: 65536,
  PARALLEL: 131072,
} as const;

/** virDomainJobType: what DOMAIN_GET_JOB_STATS says of the domain's job. */
export const DOMAIN_JOB_TYPES = ['none', 'bounded', 'unbounded', 'completed', 'failed', 'cancelled'] as const;
export type DomainJobType = (typeof DOMAIN_JOB_TYPES)[number];
