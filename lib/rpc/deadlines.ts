/**
 * Per-call deadlines. Every client call carries one, in KubeVirt's tiers (kubevirt
 * pkg/virt-handler/cmd-client/client.go): short 5 s for queries, long 20 s for commands, very long
 * 60 s for freeze (Windows VSS can take up to a minute; KubeVirt after v1.6.2 moved Freeze there).
 * Exec and GuestPing get the guest-side timeout of the request plus the short tier.
 */
import type { CmdService } from './gen/kubevirt/cmd/v1/cmd.ts';

export interface DeadlineTiers {
  readonly shortMs: number;
  readonly longMs: number;
  readonly veryLongMs: number;
}

export const DEFAULT_DEADLINES: DeadlineTiers = { shortMs: 5_000, longMs: 20_000, veryLongMs: 60_000 };

/** `guest`: the request's own timeoutSeconds plus the short tier. */
export type DeadlineTier = 'short' | 'long' | 'veryLong' | 'guest';

export type CmdMethod = keyof CmdService;

/**
 * Exhaustive on purpose: a new RPC in cmd.proto does not compile until it gets a tier. Keys are
 * ts-proto's camelCase of the RPC names (GetSEVInfo → getSevInfo); the wire paths keep the real names.
 */
export const CMD_DEADLINE_TIER: Readonly<Record<CmdMethod, DeadlineTier>> = {
  syncVirtualMachine: 'long',
  pauseVirtualMachine: 'long',
  unpauseVirtualMachine: 'long',
  freezeVirtualMachine: 'veryLong',
  unfreezeVirtualMachine: 'long',
  resetVirtualMachine: 'long',
  softRebootVirtualMachine: 'long',
  shutdownVirtualMachine: 'long',
  killVirtualMachine: 'long',
  deleteVirtualMachine: 'long',
  migrateVirtualMachine: 'long',
  syncMigrationTarget: 'long',
  cancelVirtualMachineMigration: 'long',
  signalTargetPodCleanup: 'long',
  finalizeVirtualMachineMigration: 'long',
  hotplugHostDevices: 'long',
  getDomain: 'short',
  getDomainStats: 'short',
  getGuestInfo: 'short',
  getUsers: 'short',
  getFilesystems: 'short',
  ping: 'short',
  exec: 'guest',
  guestPing: 'guest',
  virtualMachineMemoryDump: 'long',
  getQemuVersion: 'short',
  syncVirtualMachineCpUs: 'long',
  syncVirtualMachineMemory: 'long',
  getSevInfo: 'short',
  getLaunchMeasurement: 'short',
  injectLaunchSecret: 'long',
  getDomainDirtyRateStats: 'long',
  getAppliedVmiChecksum: 'short',
  migrationProxy: 'short',
};

/** Milliseconds allowed for one call of `tier`; `guestTimeoutSeconds` only matters for `guest`. */
export function deadlineMs(tiers: DeadlineTiers, tier: DeadlineTier, guestTimeoutSeconds = 0): number {
  switch (tier) {
    case 'short':
      return tiers.shortMs;
    case 'long':
      return tiers.longMs;
    case 'veryLong':
      return tiers.veryLongMs;
    case 'guest':
      return Math.max(0, guestTimeoutSeconds) * 1000 + tiers.shortMs;
  }
}
