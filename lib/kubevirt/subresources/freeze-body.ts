/**
 * The body of PUT freeze (kubevirt pkg/virt-handler/rest/lifecycle.go FreezeHandler, tag v1.6.2): a
 * v1.FreezeUnfreezeTimeout `{"unfreezeTimeout":"5m0s"}` read with Kubernetes' YAML-or-JSON decoder. An empty
 * body decodes to nothing, so the field is "not set"; a body that does not decode, or a field that is no Go
 * duration string, is "failed to unmarshal". The launcher gets whole seconds, truncated (int32(d.Seconds())).
 * Go's encoding/json matches the field name case-insensitively when no exact match exists. Shared by the handler,
 * which serves freeze, and the API server, which checks the body before forwarding it. Pure.
 */
import { parse as parseYaml } from 'yaml';
import { parseGoDuration } from './go-duration.ts';

/** An HTTP status and the text KubeVirt answers with (the handler's RestError has this shape). */
export interface BodyError {
  readonly status: number;
  readonly message: string;
}

export const FREEZE_NOT_SET = 'Unfreeze timeout in freeze request is not set';
export const FREEZE_UNMARSHAL = 'failed to unmarshal unfreeze timeout';

const INT32_MAX = 2 ** 31 - 1;

function decode(text: string): { value: unknown } | undefined {
  try {
    // The decoder takes JSON when the text starts with "{", YAML (a superset) otherwise.
    return { value: text.startsWith('{') ? JSON.parse(text) : parseYaml(text) };
  } catch {
    return undefined;
  }
}

function field(obj: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(obj, name)) return obj[name];
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : obj[key];
}

const unmarshal: BodyError = { status: 400, message: FREEZE_UNMARSHAL };
const notSet: BodyError = { status: 400, message: FREEZE_NOT_SET };

/** The unfreeze timeout in seconds, or KubeVirt's 400 answer. */
export function parseFreezeBody(body: string): { readonly unfreezeTimeoutSeconds: number } | BodyError {
  const text = body.trimStart();
  if (text === '') return notSet;
  const decoded = decode(text);
  if (decoded === undefined) return unmarshal;
  const v = decoded.value;
  if (v === null || v === undefined) return notSet;
  if (typeof v !== 'object' || Array.isArray(v)) return unmarshal;
  const timeout = field(v as Record<string, unknown>, 'unfreezeTimeout');
  if (timeout === null || timeout === undefined) return notSet;
  if (typeof timeout !== 'string') return unmarshal;
  const ns = parseGoDuration(timeout);
  if (ns === undefined) return unmarshal;
  const seconds = Math.trunc(ns / 1e9);
  return { unfreezeTimeoutSeconds: Math.max(-INT32_MAX - 1, Math.min(INT32_MAX, seconds)) };
}
