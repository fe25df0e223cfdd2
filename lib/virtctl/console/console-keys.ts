/**
 * The console's escape key: Ctrl+] (0x1d, also what Ctrl+5 sends) ends the session. A chunk read from the
 * terminal is forwarded up to the escape byte; the escape byte and what follows are dropped. Pure.
 */
const ESCAPE_BYTE = 0x1d;

export function splitAtEscape(chunk: Uint8Array): { readonly forward: Uint8Array; readonly escape: boolean } {
  const at = chunk.indexOf(ESCAPE_BYTE);
  if (at < 0) return { forward: chunk, escape: false };
  return { forward: chunk.subarray(0, at), escape: true };
}

export function connectedLine(vmi: string): string {
  return `Successfully connected to ${vmi} console. Press Ctrl+] or Ctrl+5 to exit console.`;
}

/** virtctl's words when the session drops abnormally (printed when reconnecting gives up). */
export const DISCONNECTED_TEXT = [
  'You were disconnected from the console. This could be caused by one of the following:',
  ' - the target VM was powered off',
  ' - another user connected to the console of the target VM',
  ' - network issues',
].join('\n');
