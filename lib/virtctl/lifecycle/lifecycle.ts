/**
 * start, stop and restart of a VM: the PUT to subresources.kubevirt.io with KubeVirt's StartOptions,
 * StopOptions and RestartOptions bodies, virtctl's rule that --force and --grace-period go together, its
 * error prefixes and its "VM x was scheduled to start" line. Pure.
 */
import { subresourcePath } from '../../kubevirt/gvr.ts';
import type { RestartOptions, StartOptions, StopOptions } from '../../kubevirt/v1/subresources.ts';
import { dryRunField, type ApiCall } from '../api-call.ts';
import { usageError } from '../errors/failures.ts';

export type LifecycleVerb = 'start' | 'stop' | 'restart';

export interface LifecycleFlags {
  readonly paused?: boolean;
  readonly dryRun?: boolean;
  readonly force?: boolean;
  /** Seconds; undefined when the flag was not given. */
  readonly gracePeriod?: number;
}

export interface LifecyclePlan {
  readonly call: ApiCall;
  /** virtctl's prefix for a failure of this call. */
  readonly errorPrefix: string;
}

export const FORCE_AND_GRACE = 'Must both use --force=true and set --grace-period.';

/** --force and --grace-period together or not at all (stop, restart); the grace period when forced. */
export function forced(f: LifecycleFlags): number | undefined {
  if ((f.gracePeriod !== undefined) !== (f.force === true)) throw usageError(FORCE_AND_GRACE);
  return f.gracePeriod;
}

function put(namespace: string, name: string, verb: LifecycleVerb, body: unknown): ApiCall {
  return {
    method: 'PUT',
    path: subresourcePath({ resource: 'virtualmachines', namespace, name }, verb),
    body,
  };
}

export function lifecyclePlan(
  verb: LifecycleVerb,
  target: { namespace: string; name: string },
  f: LifecycleFlags,
): LifecyclePlan {
  const { namespace, name } = target;
  const dryRun = dryRunField(f.dryRun);
  switch (verb) {
    case 'start': {
      const body: StartOptions = { ...(f.paused === true && { paused: true }), ...dryRun };
      return { call: put(namespace, name, verb, body), errorPrefix: 'Error starting VirtualMachine' };
    }
    case 'stop': {
      const grace = forced(f);
      const body: StopOptions = { ...(grace !== undefined && { gracePeriod: grace }), ...dryRun };
      const errorPrefix =
        grace === undefined ? 'error stopping VirtualMachine' : 'error force stopping VirtualMachine';
      return { call: put(namespace, name, verb, body), errorPrefix };
    }
    case 'restart': {
      const grace = forced(f);
      const body: RestartOptions = { ...(grace !== undefined && { gracePeriodSeconds: grace }), ...dryRun };
      const errorPrefix =
        grace === undefined ? 'error restarting VirtualMachine' : 'error force restarting VirtualMachine';
      return { call: put(namespace, name, verb, body), errorPrefix };
    }
  }
}

export function scheduledLine(kind: 'VM' | 'VMI', name: string, what: string): string {
  return `${kind} ${name} was scheduled to ${what}`;
}
