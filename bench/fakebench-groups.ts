/**
 * fakebench's load-balancer groups (W10 of bench/compare; the Go twin is bench/upstream-ccm/groups.go, the same
 * rule): a Service labelled {@link GROUP_LABEL} belongs to that group, as on a cloud that puts several Services on
 * one load balancer. A load-balancer call (`GetLoadBalancer`, `EnsureLoadBalancer`, `UpdateLoadBalancer`,
 * `EnsureLoadBalancerDeleted`) that arrives while another call on the same group is in flight is answered with a
 * conflict ({@link CloudConflictError}, HTTP 409, as such a cloud answers an update racing another) and counted in
 * the counters line as `conflicts`; it holds nothing. A Service without the label is in no group and never
 * conflicts.
 */
import type { V1Service } from '@kubernetes/client-node';

/** The label that puts a benchmark Service into a load-balancer group (its value is the group key). */
export const GROUP_LABEL = 'bench.ccm-kit.dev/lb-group';

/** The group of a Service: its {@link GROUP_LABEL} value, or `undefined` (none, also for an empty value). */
export function groupOf(service: V1Service): string | undefined {
  return service.metadata?.labels?.[GROUP_LABEL] || undefined;
}

/** A load-balancer call refused because another call on the same group was in flight. */
export class CloudConflictError extends Error {
  /** The HTTP status, as an HTTP client's error carries it. */
  readonly status = 409;

  constructor(method: string, group: string) {
    super(
      `fakebench: ${method}: 409 Conflict (load-balancer group ${JSON.stringify(group)} is being changed by another call)`,
    );
    this.name = 'CloudConflictError';
  }
}

/** Which groups have a call in flight, and how many calls were refused for that. */
export class GroupLocks {
  readonly #busy = new Set<string>();
  #conflicts = 0;

  /** Calls refused with a conflict so far. */
  get conflicts(): number {
    return this.#conflicts;
  }

  /**
   * Takes `group` for one call.
   * @returns true when the group was free (release it with {@link GroupLocks.release}); false when another call
   *   holds it: the call is counted as a conflict and must be refused.
   */
  take(group: string): boolean {
    if (this.#busy.has(group)) {
      this.#conflicts++;
      return false;
    }
    this.#busy.add(group);
    return true;
  }

  /** Frees `group` after the call that took it. */
  release(group: string): void {
    this.#busy.delete(group);
  }
}
