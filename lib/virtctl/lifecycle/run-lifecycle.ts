/** start, stop and restart: the call, virtctl's line, then `--wait` for the VMI when asked. */
import type { Command } from 'commander';
import { DRY_RUN_LINE } from '../api-call.ts';
import { CommandFailed } from '../errors/failures.ts';
import { forced, lifecyclePlan, scheduledLine, type LifecycleVerb } from './lifecycle.ts';
import { parseDurationFlag } from '../vmi/vmi-commands.ts';
import type { Session } from '../session.ts';
import { waitForGoal } from './wait-run.ts';
import type { WaitGoal } from './wait-goal.ts';

interface LifecycleCliFlags {
  readonly paused?: boolean;
  readonly dryRun?: boolean;
  readonly force?: boolean;
  readonly gracePeriod?: number;
  readonly wait?: boolean;
  readonly timeout: string;
}

export async function runLifecycle(
  s: Session,
  cmd: Command,
  verb: LifecycleVerb,
  name: string,
): Promise<void> {
  const f = cmd.opts<LifecycleCliFlags>();
  const timeoutMs = parseDurationFlag('--timeout', f.timeout) / 1e6;
  if (verb !== 'start') forced(f);
  const client = s.client(cmd);
  const plan = lifecyclePlan(verb, { namespace: client.namespace, name }, f);
  const waiting = f.wait === true && f.dryRun !== true;
  let goal: WaitGoal = verb === 'stop' ? { kind: 'gone' } : { kind: 'running' };
  if (waiting && verb === 'restart') {
    const uid = (await s.reader(cmd).vmi(name))?.metadata.uid;
    goal = { kind: 'restarted', ...(uid !== undefined && { oldUid: uid }) };
  }
  if (f.dryRun === true) s.out(DRY_RUN_LINE);
  try {
    await client.call(plan.call);
  } catch (err) {
    throw new CommandFailed(plan.errorPrefix, err);
  }
  s.out(scheduledLine('VM', name, verb));
  if (!waiting) return;
  await waitForGoal({ reader: s.reader(cmd), name, goal, timeoutMs, io: s.io, clock: s.clock });
}
