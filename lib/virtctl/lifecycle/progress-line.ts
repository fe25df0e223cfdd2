/**
 * One progress line that updates in place: on a terminal each change rewrites the line (carriage return and
 * erase-line) and the elapsed seconds tick; elsewhere (a pipe, a log) a line is printed only when the status
 * itself changes, and without the ticking seconds. Returns the text to write. Pure.
 */
const REWRITE = '\r\x1b[K';

export interface ProgressFrame {
  /** The status without the elapsed time; a change of it is what a log sees. */
  readonly status: string;
  readonly elapsedSeconds: number;
}

export interface ProgressState {
  /** What was last written for this line: the status, or on a terminal the whole shown text. */
  readonly shown?: string;
}

function shownText(f: ProgressFrame): string {
  return `${f.status} (${f.elapsedSeconds}s)`;
}

export function progressUpdate(
  prev: ProgressState,
  frame: ProgressFrame,
  tty: boolean,
): { readonly write: string; readonly next: ProgressState } {
  const key = tty ? shownText(frame) : frame.status;
  if (key === prev.shown) return { write: '', next: prev };
  return { write: tty ? `${REWRITE}${key}` : `${key}\n`, next: { shown: key } };
}

/** The last line: on a terminal it replaces the progress line. */
export function progressEnd(prev: ProgressState, line: string, tty: boolean): string {
  return tty && prev.shown !== undefined ? `${REWRITE}${line}\n` : `${line}\n`;
}
