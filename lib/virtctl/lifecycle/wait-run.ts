/**
 * `--wait` after start, stop or restart: reads the VMI every second until the goal is met, showing one
 * progress line (updated in place on a terminal, a new line per status change elsewhere) on stderr, then the
 * final line. Gives up with a timeout after --timeout, or when interrupted.
 */
import type { VirtualMachineInstance } from '../../kubevirt/v1/objects.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import { timeoutError } from '../errors/failures.ts';
import { formatGoDuration } from '../go-duration-string.ts';
import type { CliIo } from '../io.ts';
import type { KubevirtReader } from '../kubevirt-reader.ts';
import { progressEnd, progressUpdate, type ProgressState } from './progress-line.ts';
import { goalText, judge, phaseText, type VmiSeen, type WaitGoal } from './wait-goal.ts';

const POLL_INTERVAL_MS = 1000;

export interface WaitOptions {
  readonly reader: KubevirtReader;
  readonly name: string;
  readonly goal: WaitGoal;
  readonly timeoutMs: number;
  readonly io: CliIo;
  readonly clock: Clock;
}

function seen(vmi: VirtualMachineInstance | undefined): VmiSeen | undefined {
  if (vmi === undefined) return undefined;
  const { uid, deletionTimestamp } = vmi.metadata;
  const phase = vmi.status?.phase;
  return {
    ...(uid !== undefined && { uid }),
    ...(phase !== undefined && { phase }),
    ...(deletionTimestamp !== undefined && { deleting: true }),
  };
}

export async function waitForGoal(o: WaitOptions): Promise<void> {
  const { io, clock } = o;
  const tty = io.stderr.isTTY === true;
  const start = clock.now();
  let state: ProgressState = {};
  for (;;) {
    const vmi = seen(await o.reader.vmi(o.name));
    const verdict = judge(o.goal, o.name, vmi);
    if (verdict.state !== 'waiting') {
      io.stderr.write(progressEnd(state, verdict.line, tty));
      if (verdict.state === 'failed') throw new Error(verdict.line);
      return;
    }
    const elapsed = clock.now() - start;
    const update = progressUpdate(
      state,
      { status: verdict.line, elapsedSeconds: Math.floor(elapsed / 1000) },
      tty,
    );
    io.stderr.write(update.write);
    state = update.next;
    if (elapsed + POLL_INTERVAL_MS > o.timeoutMs) {
      if (tty) io.stderr.write('\n');
      throw timeoutError(
        `timed out after ${formatGoDuration(o.timeoutMs * 1e6)} waiting for VMI ${o.name} ${goalText(o.goal)} ` +
          `(last seen: ${phaseText(vmi)}): raise --timeout, or look at the VMI's events`,
      );
    }
    await clock.sleep(POLL_INTERVAL_MS, io.signal).catch(() => {
      throw new KvError('KV_ERR_ABORTED', 'interrupted while waiting');
    });
  }
}
