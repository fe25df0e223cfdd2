/**
 * The migration options the handler sends with MigrateVirtualMachine (kubevirt cmd-client MigrationOptions,
 * marshalled by Go's encoding/json: Go's field names, Bandwidth a Quantity), checked field by field, and
 * KubeVirt's QuantityToMebiByte for the bandwidth. One field is this project's: TargetPodRoot, the root of the
 * target Pod's layout where launchers run side by side under their own roots (local mode, tests); a Pod
 * leaves it out and the target's paths are the source's. Pure.
 */
import { isAbsolute } from 'node:path';
import { quantityValue } from '../../kubevirt/index.ts';
import { errorMessage, KvError } from '../../kernel/errors/errors.ts';

export interface MigrationOptions {
  /** MiB/s; 0 is unlimited. */
  readonly bandwidthMiB: number;
  /** Seconds without progress before the migration is aborted; 0 never. */
  readonly progressTimeoutSeconds: number;
  /** Seconds allowed per GiB of data before the migration is aborted (or helped); 0 never. */
  readonly completionTimeoutPerGiBSeconds: number;
  readonly unsafe: boolean;
  readonly allowAutoConverge: boolean;
  readonly allowPostCopy: boolean;
  readonly allowWorkloadDisruption: boolean;
  readonly parallelThreads?: number;
  readonly targetPodRoot?: string;
}

const MIB = 1024 * 1024;

/** KubeVirt's QuantityToMebiByte: whole MiB, rounded; anything below one MiB but above zero is one. */
export function bandwidthMiB(bytes: number): number {
  if (bytes <= 0) return 0;
  if (bytes < MIB) return 1;
  return Math.floor(bytes / MIB + 0.5);
}

const bad = (field: string, why: string): KvError =>
  new KvError('KV_ERR_DECODE', `migration options: ${field} ${why}`);

function seconds(o: Record<string, unknown>, field: string): number {
  const v = o[field];
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw bad(field, 'must be a whole number ≥ 0');
  return v;
}

function flag(o: Record<string, unknown>, field: string): boolean {
  const v = o[field];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw bad(field, 'must be true or false');
  return v;
}

function bandwidth(v: unknown): number {
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'string' && typeof v !== 'number') throw bad('Bandwidth', 'must be a quantity');
  try {
    const bytes = quantityValue(String(v), 'Bandwidth');
    if (bytes < 0) throw bad('Bandwidth', 'must not be negative');
    return bandwidthMiB(bytes);
  } catch (err) {
    if (err instanceof KvError && err.code === 'KV_ERR_DECODE') throw err;
    throw bad('Bandwidth', `is not a quantity: ${errorMessage(err)}`);
  }
}

function optionalInt(o: Record<string, unknown>, field: string): number | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw bad(field, 'must be a whole number ≥ 1');
  return v;
}

function root(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !isAbsolute(v)) throw bad('TargetPodRoot', 'must be an absolute path');
  return v;
}

export function parseMigrationOptions(bytes: Uint8Array | undefined): MigrationOptions {
  if (bytes === undefined || bytes.length === 0) throw bad('', 'are missing');
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (err) {
    throw new KvError('KV_ERR_DECODE', `migration options are not JSON: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('', 'must be a JSON object');
  const o = raw as Record<string, unknown>;
  const parallelThreads = optionalInt(o, 'ParallelMigrationThreads');
  const targetPodRoot = root(o['TargetPodRoot']);
  return {
    bandwidthMiB: bandwidth(o['Bandwidth']),
    progressTimeoutSeconds: seconds(o, 'ProgressTimeout'),
    completionTimeoutPerGiBSeconds: seconds(o, 'CompletionTimeoutPerGiB'),
    unsafe: flag(o, 'UnsafeMigration'),
    allowAutoConverge: flag(o, 'AllowAutoConverge'),
    allowPostCopy: flag(o, 'AllowPostCopy'),
    allowWorkloadDisruption: flag(o, 'AllowWorkloadDisruption'),
    ...(parallelThreads !== undefined && { parallelThreads }),
    ...(targetPodRoot !== undefined && { targetPodRoot }),
  };
}
