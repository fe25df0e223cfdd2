import { describe, expect, it } from '@jest/globals';
import { progressEnd, progressUpdate, type ProgressFrame, type ProgressState } from './progress-line.ts';

/** The text written for a series of frames, then the end line. */
function play(frames: ProgressFrame[], tty: boolean): string {
  let state: ProgressState = {};
  let out = '';
  for (const f of frames) {
    const u = progressUpdate(state, f, tty);
    out += u.write;
    state = u.next;
  }
  return out + progressEnd(state, 'VMI v is Running', tty);
}

const frames: ProgressFrame[] = [
  { status: 'phase Pending', elapsedSeconds: 0 },
  { status: 'phase Pending', elapsedSeconds: 0 },
  { status: 'phase Pending', elapsedSeconds: 1 },
  { status: 'phase Scheduling', elapsedSeconds: 2 },
];

describe('progress line', () => {
  it.each<[string, ProgressFrame[], boolean, string]>([
    [
      'a terminal rewrites one line as the status or the seconds change',
      frames,
      true,
      '\r\x1b[Kphase Pending (0s)\r\x1b[Kphase Pending (1s)\r\x1b[Kphase Scheduling (2s)\r\x1b[KVMI v is Running\n',
    ],
    [
      'a log gets a line per status change',
      frames,
      false,
      'phase Pending\nphase Scheduling\nVMI v is Running\n',
    ],
    ['done at once, on a terminal', [], true, 'VMI v is Running\n'],
  ])('%s', (_n, f, tty, text) => {
    expect(play(f, tty)).toBe(text);
  });
});
