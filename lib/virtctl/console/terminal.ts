/**
 * The local terminal for a console: raw mode while attached when stdin is a TTY (every key goes to the guest,
 * Ctrl+C included), restored on detach; stdin chunks delivered to one listener at a time.
 */
import type { TtyIn } from '../io.ts';

export interface Terminal {
  /** Delivers stdin chunks to fn, and its end to onEnd, until the returned function detaches them. */
  read(fn: (chunk: Buffer) => void, onEnd: () => void): () => void;
  restore(): void;
}

export function attachTerminal(stdin: TtyIn): Terminal {
  const raw = stdin.isTTY === true && typeof stdin.setRawMode === 'function';
  if (raw) stdin.setRawMode?.(true);
  let ended = false;
  stdin.once('end', () => {
    ended = true;
  });
  return {
    read(fn, onEnd): () => void {
      if (ended) {
        queueMicrotask(onEnd);
        return (): void => undefined;
      }
      stdin.on('data', fn);
      stdin.once('end', onEnd);
      stdin.resume();
      return (): void => {
        stdin.off('data', fn);
        stdin.off('end', onEnd);
        stdin.pause();
      };
    },
    restore(): void {
      if (raw) stdin.setRawMode?.(false);
      stdin.pause();
    },
  };
}
