/**
 * The source migration monitor's decisions (kubevirt live-migration-source.go processInflightMigration,
 * isMigrationProgressing, shouldTriggerTimeout): fed each job sample, it tracks progress by the remaining data
 * (a new low mark is progress) and says what to do: nothing; switch to post-copy or pause the guest once the
 * completion time is over and workload disruption is allowed; abort when no progress came for the progress
 * timeout, or when the completion time is over. Nothing is decided in post-copy: the target already runs the
 * guest. Pure: times are milliseconds given by the caller.
 */
import type { MigrationMode } from './metadata.ts';
import type { MigrationOptions } from './options.ts';

export interface MonitorState {
  readonly startMs: number;
  readonly lastProgressMs: number;
  /** The lowest remaining data seen (0 before the first sample). */
  readonly watermark: number;
  /** Seconds the whole migration may take (completion timeout per GiB × GiB); 0 is unlimited. */
  readonly acceptableSeconds: number;
  readonly mode: MigrationMode;
}

export type MonitorAction =
  | { readonly kind: 'none' }
  | { readonly kind: 'post-copy' }
  | { readonly kind: 'pause' }
  | { readonly kind: 'abort'; readonly reason: string };

type Rules = Pick<MigrationOptions, 'progressTimeoutSeconds' | 'allowPostCopy' | 'allowWorkloadDisruption'>;

const GIB = 1000 ** 3;

/** getVMIMigrationDataSize: the guest's memory in GB (Quantity.ScaledValue(Giga) rounds up). */
export function migrationDataGiB(memoryBytes: number): number {
  return Math.ceil(memoryBytes / GIB);
}

export function initialMonitor(o: {
  nowMs: number;
  perGiBSeconds: number;
  memoryBytes: number;
}): MonitorState {
  return {
    startMs: o.nowMs,
    lastProgressMs: o.nowMs,
    watermark: 0,
    acceptableSeconds: o.perGiBSeconds * migrationDataGiB(o.memoryBytes),
    mode: 'PreCopy',
  };
}

const wholeSeconds = (ms: number): number => Math.floor(ms / 1000);

/** One running-job sample: the next state and what to do. */
export function monitorStep(
  s: MonitorState,
  sample: { nowMs: number; remaining: number },
  rules: Rules,
): { state: MonitorState; action: MonitorAction } {
  const progressed = s.watermark === 0 || sample.remaining < s.watermark;
  const next: MonitorState = {
    ...s,
    lastProgressMs: progressed ? sample.nowMs : s.lastProgressMs,
    watermark: sample.remaining,
  };
  const elapsed = wholeSeconds(sample.nowMs - s.startMs);
  const overtime = next.acceptableSeconds !== 0 && elapsed > next.acceptableSeconds;
  const stuckFor = wholeSeconds(sample.nowMs - next.lastProgressMs);
  if (next.mode === 'PostCopy') return { state: next, action: { kind: 'none' } };
  if (overtime && rules.allowWorkloadDisruption && next.mode !== 'Paused') {
    if (rules.allowPostCopy) return { state: { ...next, mode: 'PostCopy' }, action: { kind: 'post-copy' } };
    const paused = { ...next, mode: 'Paused' as const, acceptableSeconds: next.acceptableSeconds * 2 };
    return { state: paused, action: { kind: 'pause' } };
  }
  if (rules.progressTimeoutSeconds !== 0 && stuckFor > rules.progressTimeoutSeconds) {
    const reason = `Live migration stuck for ${String(stuckFor)} seconds and has been aborted`;
    return { state: next, action: { kind: 'abort', reason } };
  }
  if (overtime) {
    const reason = `Live migration is not completed after ${String(next.acceptableSeconds)} seconds and has been aborted`;
    return { state: next, action: { kind: 'abort', reason } };
  }
  return { state: next, action: { kind: 'none' } };
}
