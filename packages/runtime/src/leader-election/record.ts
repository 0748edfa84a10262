/**
 * The leader election record (client-go `resourcelock.LeaderElectionRecord`) and its mapping to and
 * from a coordination.k8s.io/v1 Lease spec (client-go `LeaseSpecToLeaderElectionRecord` and back).
 */
import type { V1Lease, V1LeaseSpec } from '@kubernetes/client-node';
import { parseTime, toMicroTime } from '../client/time.js';

/** Who holds a lease and since when, as stored in the Lease spec. */
export interface LeaderElectionRecord {
  /** The holder's identity; '' when released. */
  holderIdentity: string;
  /** How long the holder claims the lease after each renewal, in seconds. */
  leaseDurationSeconds: number;
  /** When the current holder acquired the lease. */
  acquireTime?: Date;
  /** When the holder last renewed it. */
  renewTime?: Date;
  /** Number of times the holder changed. */
  leaderTransitions: number;
}

/** Reads the record from a Lease (times arrive as strings or Dates). */
export function recordFromLease(lease: V1Lease): LeaderElectionRecord {
  const s = lease.spec ?? {};
  const acquireTime = parseTime(s.acquireTime as unknown as string | Date | undefined);
  const renewTime = parseTime(s.renewTime as unknown as string | Date | undefined);
  return {
    holderIdentity: s.holderIdentity ?? '',
    leaseDurationSeconds: s.leaseDurationSeconds ?? 0,
    leaderTransitions: s.leaseTransitions ?? 0,
    ...(acquireTime ? { acquireTime } : {}),
    ...(renewTime ? { renewTime } : {}),
  };
}

/** The Lease spec for a record, with MicroTime timestamps (6 fraction digits on the wire). */
export function leaseSpecFromRecord(r: LeaderElectionRecord): V1LeaseSpec {
  return {
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    leaseTransitions: r.leaderTransitions,
    ...(r.acquireTime ? { acquireTime: toMicroTime(r.acquireTime) } : {}),
    ...(r.renewTime ? { renewTime: toMicroTime(r.renewTime) } : {}),
  };
}

/** A stable text form of a record, to notice any change (client-go compares the raw record bytes). */
export function recordFingerprint(r: LeaderElectionRecord): string {
  return JSON.stringify([
    r.holderIdentity,
    r.leaseDurationSeconds,
    r.acquireTime?.getTime() ?? null,
    r.renewTime?.getTime() ?? null,
    r.leaderTransitions,
  ]);
}
