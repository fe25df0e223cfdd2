/**
 * The backoff of migrations the cluster starts on its own (kubevirt migration.go handleMigrationBackoff and
 * listBackoffEligibleMigrations, tag v1.6.2): the newest evacuation or workload-update migration of a VMI waits
 * 20 s after the failure of the one before it, doubled for each earlier failure back to the last success; a
 * migration being deleted does not count. A person's migration never waits.
 */
import { ANNOTATIONS } from '../../kubevirt/index.ts';
import type { VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import { parseTime } from '../../kernel/controller/time.ts';

type Migration = VirtualMachineInstanceMigration;

const FIRST_BACKOFF_MS = 20_000;

const hasAnnotation = (m: Migration, key: string): boolean => m.metadata.annotations?.[key] !== undefined;
const isEligible = (m: Migration): boolean =>
  hasAnnotation(m, ANNOTATIONS.EVACUATION_MIGRATION) ||
  hasAnnotation(m, ANNOTATIONS.WORKLOAD_UPDATE_MIGRATION);
const created = (m: Migration): number => parseTime(m.metadata.creationTimestamp) ?? 0;
const failedAt = (m: Migration | undefined): number =>
  parseTime(
    m?.status?.phaseTransitionTimestamps?.find((t) => t.phase === 'Failed')?.phaseTransitionTimestamp,
  ) ?? 0;

/** The backoff the failures before the newest of the eligible migrations add up to, newest first. */
function backoffOf(newestFirst: readonly Migration[]): number {
  let backoff = 0;
  for (const m of newestFirst.slice(1)) {
    if (m.status?.phase === 'Succeeded') break;
    if (m.metadata.deletionTimestamp !== undefined) continue;
    if (m.status?.phase === 'Failed') backoff = backoff === 0 ? FIRST_BACKOFF_MS : backoff * 2;
  }
  return backoff;
}

/**
 * How long m must still wait before its target Pod (0: not at all), given the migrations of its VMI (m among
 * them) and the time. The wait runs from the failure of the migration just before m.
 */
export function migrationBackoffMs(m: Migration, ofVmi: readonly Migration[], nowMs: number): number {
  if (hasAnnotation(m, ANNOTATIONS.IGNORE_MIGRATION_BACKOFF) || !isEligible(m)) return 0;
  const eligible = ofVmi.filter(isEligible).sort((a, b) => created(b) - created(a));
  if (eligible.length < 2 || eligible[0]?.metadata.uid !== m.metadata.uid) return 0;
  const backoff = backoffOf(eligible);
  if (backoff === 0) return 0;
  return Math.max(0, failedAt(eligible[1]) + backoff - nowMs);
}
