/** One request to the API server as the commands build it: method, path and JSON body. */
import type { ApiRequest } from './errors/failures.ts';

export interface ApiCall extends ApiRequest {
  /** JSON body; absent sends none (unfreeze, softreboot). */
  readonly body?: unknown;
}

/** dryRun as KubeVirt's option bodies carry it: ["All"], or left out. */
export function dryRunField(dryRun: boolean | undefined): { dryRun?: string[] } {
  return dryRun === true ? { dryRun: ['All'] } : {};
}

/** The line virtctl prints on stdout before a dry-run call. */
export const DRY_RUN_LINE = 'Dry Run execution';
