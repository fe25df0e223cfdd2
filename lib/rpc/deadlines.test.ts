import { describe, expect, it } from '@jest/globals';
import {
  CMD_DEADLINE_TIER,
  DEFAULT_DEADLINES,
  deadlineMs,
  type CmdMethod,
  type DeadlineTier,
} from './deadlines.ts';

describe('deadlines', () => {
  it.each<[CmdMethod, number]>([
    ['ping', 5_000],
    ['getDomain', 5_000],
    ['getDomainStats', 5_000],
    ['getQemuVersion', 5_000],
    ['getAppliedVmiChecksum', 5_000],
    ['syncVirtualMachine', 20_000],
    ['shutdownVirtualMachine', 20_000],
    ['killVirtualMachine', 20_000],
    ['deleteVirtualMachine', 20_000],
    ['migrateVirtualMachine', 20_000],
    ['getDomainDirtyRateStats', 20_000],
    ['freezeVirtualMachine', 60_000],
  ])('%s gets %d ms by default', (method, ms) => {
    expect(deadlineMs(DEFAULT_DEADLINES, CMD_DEADLINE_TIER[method])).toBe(ms);
  });

  it.each<[CmdMethod, number, number]>([
    ['exec', 3, 8_000],
    ['guestPing', 0, 5_000],
    ['guestPing', -4, 5_000],
  ])('%s with a %d s guest timeout gets %d ms', (method, seconds, ms) => {
    expect(deadlineMs(DEFAULT_DEADLINES, CMD_DEADLINE_TIER[method], seconds)).toBe(ms);
  });

  it('uses the injected tiers', () => {
    const tiers = { shortMs: 1, longMs: 2, veryLongMs: 3 };
    const all: DeadlineTier[] = ['short', 'long', 'veryLong', 'guest'];
    expect(all.map((t) => deadlineMs(tiers, t, 1))).toEqual([1, 2, 3, 1001]);
  });
});
