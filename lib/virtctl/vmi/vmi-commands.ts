/**
 * The VMI commands: pause/unpause (virtctl's `pause vm|vmi <name>` form), freeze with its unfreeze timeout as
 * a Go duration (default 5m, sent as "5m0s"), unfreeze, soft-reboot, and the guest agent reads guestosinfo,
 * userlist and fslist. Requests, argument checks and virtctl's lines. Pure.
 */
import { subresourcePath } from '../../kubevirt/gvr.ts';
import type { FreezeUnfreezeTimeout, PauseOptions } from '../../kubevirt/v1/subresources.ts';
import { parseGoDuration } from '../../kubevirt/subresources/go-duration.ts';
import { dryRunField, type ApiCall } from '../api-call.ts';
import { usageError } from '../errors/failures.ts';
import { formatGoDuration } from '../go-duration-string.ts';

export type TargetKind = 'vm' | 'vmi';

const KIND_WORDS: Readonly<Record<string, TargetKind>> = {
  vm: 'vm',
  vms: 'vm',
  virtualmachine: 'vm',
  virtualmachines: 'vm',
  vmi: 'vmi',
  vmis: 'vmi',
  virtualmachineinstance: 'vmi',
  virtualmachineinstances: 'vmi',
};

/** The first argument of pause/unpause, case-insensitive, singular or plural. */
export function parseTargetKind(word: string): TargetKind {
  const kind = KIND_WORDS[word.toLowerCase()];
  if (kind === undefined) {
    throw usageError(
      `unsupported resource type '${word}': use vm (virtualmachine) or vmi (virtualmachineinstance)`,
    );
  }
  return kind;
}

function vmiPath(namespace: string, name: string, sub: string): string {
  return subresourcePath({ resource: 'virtualmachineinstances', namespace, name }, sub);
}

export function pauseCall(
  verb: 'pause' | 'unpause',
  target: { namespace: string; name: string },
  dryRun: boolean | undefined,
): ApiCall {
  const body: PauseOptions = dryRunField(dryRun);
  return { method: 'PUT', path: vmiPath(target.namespace, target.name, verb), body };
}

export const DEFAULT_UNFREEZE_TIMEOUT = '5m';

/** Go's time.ParseDuration of the flag, as cobra reports a bad value. */
export function parseDurationFlag(flag: string, text: string): number {
  const ns = parseGoDuration(text);
  if (ns === undefined)
    throw usageError(`invalid argument "${text}" for "${flag}" flag: time: invalid duration "${text}"`);
  return ns;
}

export function freezeCall(target: { namespace: string; name: string }, unfreezeTimeout: string): ApiCall {
  const ns = parseDurationFlag('--unfreeze-timeout', unfreezeTimeout);
  if (ns < 0) throw usageError(`--unfreeze-timeout must not be negative, got ${unfreezeTimeout}`);
  const body: FreezeUnfreezeTimeout = { unfreezeTimeout: formatGoDuration(ns) };
  return { method: 'PUT', path: vmiPath(target.namespace, target.name, 'freeze'), body };
}

/** unfreeze and soft-reboot take no body. */
export function bareCall(
  sub: 'unfreeze' | 'softreboot',
  target: { namespace: string; name: string },
): ApiCall {
  return { method: 'PUT', path: vmiPath(target.namespace, target.name, sub) };
}

export type GuestQuery = 'guestosinfo' | 'userlist' | 'fslist';

const QUERY_PATHS: Readonly<Record<GuestQuery, string>> = {
  guestosinfo: 'guestosinfo',
  userlist: 'userlist',
  fslist: 'filesystemlist',
};

const QUERY_PREFIXES: Readonly<Record<GuestQuery, (vmi: string) => string>> = {
  guestosinfo: (vmi) => `Error getting guestosinfo of VirtualMachineInstance ${vmi}`,
  userlist: (vmi) => `Error listing users of VirtualMachineInstance ${vmi}`,
  fslist: (vmi) => `Error listing filesystems of VirtualMachineInstance ${vmi}`,
};

export function guestQuery(
  query: GuestQuery,
  target: { namespace: string; name: string },
): { call: ApiCall; errorPrefix: string } {
  return {
    call: { method: 'GET', path: vmiPath(target.namespace, target.name, QUERY_PATHS[query]) },
    errorPrefix: QUERY_PREFIXES[query](target.name),
  };
}

/** The answer printed as virtctl prints it: indented JSON and a newline. */
export function guestQueryOutput(answer: unknown): string {
  if (typeof answer !== 'string') return `${JSON.stringify(answer ?? {}, null, 2)}\n`;
  try {
    return `${JSON.stringify(JSON.parse(answer), null, 2)}\n`;
  } catch {
    return answer.endsWith('\n') ? answer : `${answer}\n`;
  }
}
