import { describe, expect, it } from '@jest/globals';
import { attachFailureMessage, parseAttachFailure } from './attach-failure.ts';

describe('attach failure messages', () => {
  it.each([
    { kind: 'volume' as const, name: 'hp-1', cause: 'internal error: unable to execute QEMU command' },
    {
      kind: 'host device' as const,
      name: 'dra-hostdevice-usb1',
      cause: "cannot open directory '/sys/bus/usb'\nmore",
    },
  ])("round trip through the handler's prefix: $kind", (f) => {
    expect(parseAttachFailure(`SyncVMI: ${attachFailureMessage(f)}`)).toEqual(f);
  });

  it.each([undefined, '', 'SyncVMI: virError(Code=1): something else', 'attaching disk x failed: y'])(
    'any other message names no device: %p',
    (m) => {
      expect(parseAttachFailure(m)).toBeUndefined();
    },
  );

  it('a cause longer than 1 KiB is cut there', () => {
    const f = parseAttachFailure(
      attachFailureMessage({ kind: 'volume', name: 'v', cause: 'x'.repeat(5000) }),
    );
    expect(f?.cause).toBe(`${'x'.repeat(1024)}…`);
  });
});
