/**
 * What `--wait` waits for after start, stop or restart, judged from one read of the VMI: start → the VMI is
 * Running; stop → the VMI is gone; restart → a VMI with another uid than before is Running. A VMI that ends
 * Failed (the new one, on restart) ends the wait with a failure. Each read gives the progress line to show.
 * Pure.
 */
export type WaitGoal =
  | { readonly kind: 'running' }
  | { readonly kind: 'gone' }
  /** oldUid undefined: there was no VMI before the restart. */
  | { readonly kind: 'restarted'; readonly oldUid?: string };

/** The VMI as read, or undefined when there is none. */
export interface VmiSeen {
  readonly uid?: string;
  readonly phase?: string;
  readonly deleting?: boolean;
}

export type WaitVerdict =
  | { readonly state: 'waiting'; readonly line: string }
  | { readonly state: 'done'; readonly line: string }
  | { readonly state: 'failed'; readonly line: string };

export function phaseText(vmi: VmiSeen | undefined): string {
  if (vmi === undefined) return 'no VMI yet';
  const phase = vmi.phase === undefined || vmi.phase === '' ? 'no phase yet' : `phase ${vmi.phase}`;
  return vmi.deleting === true ? `${phase}, deleting` : phase;
}

export function goalText(goal: WaitGoal): string {
  switch (goal.kind) {
    case 'running':
      return 'to be Running';
    case 'gone':
      return 'to be gone';
    case 'restarted':
      return 'to be Running again';
  }
}

function runningVerdict(name: string, vmi: VmiSeen | undefined, fresh: boolean): WaitVerdict | undefined {
  if (vmi === undefined || !fresh) return undefined;
  if (vmi.phase === 'Running' && vmi.deleting !== true)
    return { state: 'done', line: `VMI ${name} is Running` };
  if (vmi.phase === 'Failed') return { state: 'failed', line: `VMI ${name} failed (phase Failed)` };
  return undefined;
}

export function judge(goal: WaitGoal, name: string, vmi: VmiSeen | undefined): WaitVerdict {
  const waiting: WaitVerdict = {
    state: 'waiting',
    line: `Waiting for VMI ${name} ${goalText(goal)}: ${phaseText(vmi)}`,
  };
  switch (goal.kind) {
    case 'running':
      return runningVerdict(name, vmi, true) ?? waiting;
    case 'gone':
      return vmi === undefined ? { state: 'done', line: `VMI ${name} is gone` } : waiting;
    case 'restarted': {
      const fresh = vmi !== undefined && (goal.oldUid === undefined || vmi.uid !== goal.oldUid);
      const old = vmi !== undefined && !fresh;
      const line = old ? `${waiting.line} (the old VMI)` : waiting.line;
      return runningVerdict(name, vmi, fresh) ?? { state: 'waiting', line };
    }
  }
}
