/**
 * The migration metadata the source launcher keeps and reports with its domain (kubevirt
 * virtwrap/live-migration-source.go initializeMigrationMetadata, setMigrationResultHelper; api.MigrationMetadata):
 * one record per migration attempt, started once, ended once; an abort in progress holds off every result but
 * the abort's own. Pure: times come in as RFC 3339 strings.
 */
import { KvError } from '../../kernel/errors/errors.ts';
import type { MigrationMetadataJson } from '../../rpc/index.ts';

export type MigrationMode = 'PreCopy' | 'PostCopy' | 'Paused';
type AbortStatus = '' | 'Aborting' | 'Succeeded' | 'Failed';

/** initializeMigrationMetadata: a fresh record, or 'running' when this very migration already runs. */
export function startMetadata(
  current: MigrationMetadataJson | undefined,
  o: { uid: string; now: string },
): MigrationMetadataJson | 'running' {
  if (current !== undefined && current.UID === o.uid) {
    if (current.EndTimestamp === undefined) return 'running';
    throw new KvError(
      'KV_ERR_INVALID',
      `migration job ${o.uid} already executed, finished at ${current.EndTimestamp}, failed: ${String(current.Failed === true)}, abortStatus: ${current.AbortStatus ?? ''}`,
    );
  }
  return { UID: o.uid, StartTimestamp: o.now, Mode: 'PreCopy' };
}

export interface MigrationResult {
  readonly failed: boolean;
  readonly reason?: string;
  readonly abortStatus?: AbortStatus;
  readonly now: string;
}

/**
 * setMigrationResultHelper: the record with the result, unchanged when it already ended, or 'abort-in-progress'
 * when an abort runs and this result is not its end (nor a second abort request).
 */
export function withResult(
  m: MigrationMetadataJson | undefined,
  r: MigrationResult,
): MigrationMetadataJson | undefined | 'abort-in-progress' {
  if (m === undefined) return undefined;
  const abort = r.abortStatus ?? '';
  const current = m.AbortStatus ?? '';
  if (current === 'Aborting' && abort !== 'Failed' && abort !== 'Succeeded') return 'abort-in-progress';
  if (m.EndTimestamp !== undefined) return m;
  return recorded(m, r, abort);
}

function recorded(m: MigrationMetadataJson, r: MigrationResult, abort: AbortStatus): MigrationMetadataJson {
  const out: MigrationMetadataJson = { ...m };
  delete out.AbortStatus;
  if (r.failed) {
    out.Failed = true;
    out.FailureReason = r.reason ?? '';
  }
  // Only a migration that ended, or whose abort did, is complete; a failed abort leaves it running.
  const ends = abort === '' || abort === 'Succeeded';
  return { ...out, ...(abort !== '' && { AbortStatus: abort }), ...(ends && { EndTimestamp: r.now }) };
}

/** cancelMigration's precondition: a migration started here and still running. */
export function isCancellable(m: MigrationMetadataJson | undefined): boolean {
  return m?.StartTimestamp !== undefined && m.EndTimestamp === undefined && m.Failed !== true;
}
