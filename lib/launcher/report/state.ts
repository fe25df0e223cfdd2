/**
 * libvirt domain state and reason → KubeVirt's api.LifeCycle and api.StateChangeReason (kubevirt
 * pkg/virt-launcher/virtwrap/util ConvState/ConvReason), and the watch event type a libvirt lifecycle event
 * becomes on the Notify channel. Pure.
 */
import type { DomainStateName } from '../../libvirt/index.ts';
import type { LifeCycle } from '../../rpc/index.ts';

const LIFECYCLE: Readonly<Record<DomainStateName | 'unknown', LifeCycle>> = {
  nostate: 'NoState',
  running: 'Running',
  blocked: 'Blocked',
  paused: 'Paused',
  shutdown: 'ShuttingDown',
  shutoff: 'Shutoff',
  crashed: 'Crashed',
  pmsuspended: 'PMSuspended',
  unknown: 'NoState',
};

/** Reason spellings that are not the plain PascalCase of libvirt's name. */
const REASON_SPELLING: Readonly<Record<string, string>> = {
  ioerror: 'IOError',
};

export interface KubevirtState {
  readonly status: LifeCycle;
  readonly reason: string;
}

/** The state of a domain that does not exist (any more). */
export const NON_EXISTENT: KubevirtState = { status: 'NoState', reason: 'NonExistent' };

function lifeCycleOf(state: DomainStateName | 'unknown'): LifeCycle {
  return LIFECYCLE[state];
}

/** 'from_snapshot' → 'FromSnapshot', 'ioerror' → 'IOError', 'user' → 'User'. */
export function reasonOf(reason: string): string {
  const spelled = REASON_SPELLING[reason];
  if (spelled !== undefined) return spelled;
  return reason
    .split('_')
    .filter((w) => w !== '')
    .map((w) => `${w.charAt(0).toUpperCase()}${w.slice(1)}`)
    .join('');
}

export function kubevirtState(s: { state: DomainStateName | 'unknown'; reason: string }): KubevirtState {
  return { status: lifeCycleOf(s.state), reason: reasonOf(s.reason) };
}

/** watch.EventType spellings KubeVirt's notify client sends for a domain. */
export type DomainWatchEvent = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * What a libvirt lifecycle event means for the handler (kubevirt notify-client eventCallback): a domain that
 * no longer exists is DELETED, a newly defined one ADDED, anything else MODIFIED.
 */
export function watchEventFor(
  lifecycle: { event: string; detail: string },
  exists: boolean,
): DomainWatchEvent {
  if (!exists || lifecycle.event === 'undefined') return 'DELETED';
  if (lifecycle.event === 'defined' && lifecycle.detail === 'added') return 'ADDED';
  return 'MODIFIED';
}
