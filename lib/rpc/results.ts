/** In-band results as callers see them, and the JSON payload decoding shared by the clients. Pure. */
import { KvError } from '../kernel/errors/errors.ts';

/** The launcher's answer to a command: success=false names the domain-level cause in message. */
export interface CmdResult {
  readonly success: boolean;
  readonly message: string;
}

/**
 * A missing Response sub-message counts as success, as in kubevirt cmd-client handleError (it only
 * fails on `response != nil && !response.Success`).
 */
export function resultOf(response: { success: boolean; message: string } | undefined): CmdResult {
  return response === undefined
    ? { success: true, message: '' }
    : { success: response.success, message: response.message };
}

/** Parses a JSON payload field; the empty string means "nothing there" (undefined). */
export function parseJsonField(what: string, text: string | Uint8Array): unknown {
  const s = typeof text === 'string' ? text : Buffer.from(text).toString('utf8');
  if (s === '') return undefined;
  try {
    return JSON.parse(s) as unknown;
  } catch (err) {
    throw new KvError('KV_ERR_DECODE', `${what}: invalid JSON payload`, { cause: err });
  }
}

/** JSON-encodes an object for a bytes field. */
export function jsonBytes(value: object): Buffer {
  return Buffer.from(JSON.stringify(value));
}
