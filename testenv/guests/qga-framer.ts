/**
 * Splits the byte stream qemu-ga writes on its virtio-serial port into JSON replies, one per line.
 * A client resynchronises with guest-sync-delimited: the agent then writes a 0xFF byte right before its
 * reply, and everything received before that byte (late replies, the agent's complaint about the 0xFF
 * the client sent to reset its parser) is stale. expectDelimiter() arms that skip.
 */
import { KvError } from '../../lib/kernel/errors/errors.ts';

export const QGA_DELIMITER = 0xff;
const NEWLINE = 0x0a;

interface QgaErrorBody {
  class: string;
  desc: string;
}

export type QgaReply = { return: unknown } | { error: QgaErrorBody };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isErrorBody(v: unknown): v is QgaErrorBody {
  return isRecord(v) && typeof v['class'] === 'string' && typeof v['desc'] === 'string';
}

/** Parses one reply line; anything but `{"return": ...}` or `{"error": {class, desc}}` is a decode error. */
export function parseQgaReply(line: string): QgaReply {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (err) {
    throw new KvError('KV_ERR_DECODE', `guest agent sent invalid JSON: ${line.slice(0, 200)}`, {
      cause: err,
    });
  }
  if (isRecord(v) && 'return' in v) return { return: v['return'] };
  if (isRecord(v) && isErrorBody(v['error'])) return { error: v['error'] };
  throw new KvError('KV_ERR_DECODE', `guest agent sent an unexpected message: ${line.slice(0, 200)}`);
}

export class QgaFramer {
  private pending: Buffer = Buffer.alloc(0);
  private skipping = false;

  /** Drops everything up to and including the next 0xFF byte (call before sending guest-sync-delimited). */
  expectDelimiter(): void {
    this.skipping = true;
    this.pending = Buffer.alloc(0);
  }

  /** Feeds bytes; returns the replies completed by them, in order. */
  push(chunk: Buffer): QgaReply[] {
    let data = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    if (this.skipping) {
      const at = data.indexOf(QGA_DELIMITER);
      if (at < 0) {
        this.pending = Buffer.alloc(0);
        return [];
      }
      data = data.subarray(at + 1);
      this.skipping = false;
    }
    const replies: QgaReply[] = [];
    for (let nl = data.indexOf(NEWLINE); nl >= 0; nl = data.indexOf(NEWLINE)) {
      const line = data.subarray(0, nl).toString('utf8').trim();
      data = data.subarray(nl + 1);
      if (line !== '') replies.push(parseQgaReply(line));
    }
    this.pending = Buffer.from(data);
    return replies;
  }
}
