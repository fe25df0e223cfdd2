/**
 * The coordination.k8s.io/v1 Lease as a leader-election record: types and pure conversions.
 * Times are MicroTime strings (RFC 3339 with exactly six fractional digits), as the API server writes them.
 */
import type { KubeObject } from '../kube/types.ts';

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/** The election-relevant part of a lease; holderIdentity '' means nobody holds it. */
export interface LeaderRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaseTransitions: number;
}

/** Formats epoch milliseconds as a Kubernetes MicroTime ('2006-01-02T15:04:05.000000Z'). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Reads the record from a lease; missing fields read as empty/zero, like client-go's LeaseSpecToLeaderElectionRecord. */
export function recordOf(lease: Lease): LeaderRecord {
  const s = lease.spec ?? {};
  return {
    holderIdentity: s.holderIdentity ?? '',
    leaseDurationSeconds: s.leaseDurationSeconds ?? 0,
    acquireTime: s.acquireTime ?? '',
    renewTime: s.renewTime ?? '',
    leaseTransitions: s.leaseTransitions ?? 0,
  };
}

export function sameRecord(leaderRecord: LeaderRecord | undefined, b: LeaderRecord): boolean {
  return (
    leaderRecord !== undefined &&
    leaderRecord.holderIdentity === b.holderIdentity &&
    leaderRecord.leaseDurationSeconds === b.leaseDurationSeconds &&
    leaderRecord.acquireTime === b.acquireTime &&
    leaderRecord.renewTime === b.renewTime &&
    leaderRecord.leaseTransitions === b.leaseTransitions
  );
}

function specOf(leaderRecord: LeaderRecord): LeaseSpec {
  const spec: LeaseSpec = {
    holderIdentity: leaderRecord.holderIdentity,
    leaseDurationSeconds: leaderRecord.leaseDurationSeconds,
    leaseTransitions: leaderRecord.leaseTransitions,
  };
  if (leaderRecord.acquireTime !== '') spec.acquireTime = leaderRecord.acquireTime;
  if (leaderRecord.renewTime !== '') spec.renewTime = leaderRecord.renewTime;
  return spec;
}

/** A new Lease object holding the record. */
export function newLease(namespace: string, name: string, r: LeaderRecord): Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { namespace, name },
    spec: specOf(r),
  };
}

/** The lease with its spec replaced by the record; metadata (resourceVersion included) is kept for the lock. */
export function withRecord(lease: Lease, r: LeaderRecord): Lease {
  return { ...lease, metadata: { ...lease.metadata }, spec: specOf(r) };
}
