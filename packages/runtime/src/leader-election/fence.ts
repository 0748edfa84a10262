/**
 * Fencing a leader that cannot prove it still holds its lease (ccm-kit behaviour, not client-go's; see
 * docs/decisions/0050-lease-fencing.md). client-go's `LeaderElector` lets the controllers run until a renewal
 * round has failed for the whole renew deadline, so a leader paused (SIGSTOP, a long GC, a frozen VM) longer
 * than the lease keeps calling the cloud and writing to the API after another replica took over.
 *
 * A leader is fenced while its last successful acquire or renew — measured on the monotonic clock from when
 * that attempt started — is older than the renew deadline. Another candidate can take the lease only a full
 * lease duration after it observed that renewal, and the renew deadline is shorter, so a leader that is not
 * fenced still holds the lease.
 */

/** Something that knows whether this process may act as the leader (a {@link LeaderElector}). */
export interface LeaseFence {
  /** True when this process must not call the cloud or write to the API. */
  isFenced(): boolean;
  /** A short description of the lease for error messages, e.g. `kube-system/cloud-controller-manager`. */
  describe(): string;
}

/**
 * Thrown instead of a cloud call or an API write while the leader is fenced. It is an ordinary, retryable
 * failure: controllers requeue the object; it never means "does not exist".
 */
export class LeaseFencedError extends Error {
  override readonly name = 'LeaseFencedError';
  /** What was refused, e.g. `cloud call LoadBalancer.ensureLoadBalancer` or `API write POST /api/v1/...`. */
  readonly action: string;
  constructor(action: string, lease: string) {
    super(
      `${action} refused: this replica has not renewed lease ${lease} within the renew deadline, so it may no longer be the leader; it resumes once it renews`,
    );
    this.action = action;
  }
}

/** True for a LeaseFencedError (also across package copies). */
export function isLeaseFencedError(err: unknown): err is LeaseFencedError {
  return err instanceof Error && err.name === 'LeaseFencedError';
}

/**
 * Throws {@link LeaseFencedError} for `action` when `fence` is fenced; no-op when `fence` is undefined
 * (no leader election).
 */
export function checkFence(fence: LeaseFence | undefined, action: string): void {
  if (fence?.isFenced()) throw new LeaseFencedError(action, fence.describe());
}

/** Lease requests (the renewal itself) and Events (a record of what happened, not state) pass the fence. */
const exemptWrite = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/[^/]+\/leases(\/|$)|^\/api\/v1\/namespaces\/[^/]+\/events(\/|$)|^\/apis\/events\.k8s\.io\//;

/**
 * A write guard for {@link RestTransport.setWriteGuard}: refuses every non-GET request while `fence()` is
 * fenced, except Lease requests and Events.
 * @param fence returns the current fence (undefined while there is none yet: nothing is refused).
 */
export function leaseWriteGuard(fence: () => LeaseFence | undefined): (method: string, url: URL) => void {
  return (method, url) => {
    if (method === 'GET' || method === 'HEAD' || exemptWrite.test(url.pathname)) return;
    checkFence(fence(), `API write ${method} ${url.pathname}`);
  };
}
