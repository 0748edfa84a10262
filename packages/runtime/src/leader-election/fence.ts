/**
 * Fencing a leader that cannot prove it still holds its lease (ccm-kit behaviour, not client-go's; see
 * docs/decisions/0050-lease-fencing.md). client-go's `LeaderElector` lets the controllers run until a renewal
 * round has failed for the whole renew deadline, so a leader paused (SIGSTOP, a long GC, a frozen VM) longer
 * than the lease keeps calling the cloud and writing to the API after another replica took over.
 *
 * A leader is fenced while its last successful acquire or renew — measured on the monotonic clock from when the
 * write that took or renewed the lease was sent — is older than the renew deadline. Another candidate can take the lease only a full
 * lease duration after it observed that renewal, and the renew deadline is shorter, so a leader that is not
 * fenced still holds the lease.
 */

/** Something that knows whether this process may act as the leader (a {@link LeaderElector}). */
export interface LeaseFence {
  /** True when this process must not call the cloud or write to the API. */
  isFenced(): boolean;
  /** Milliseconds until the fence closes if no renewal comes first (≤ 0: fenced now). */
  validForMs(): number;
  /** A short description of the lease for error messages, e.g. `kube-system/cloud-controller-manager`. */
  describe(): string;
}

/**
 * Thrown instead of a cloud call or an API write while the leader is fenced; it never means "does not exist".
 * The manager deposes a leader whose work meets it: the controllers stop and the lease counts as lost
 * (docs/decisions/0052-fenced-leader-exits.md). Elsewhere (a standby's background request) it is an ordinary
 * failure.
 */
export class LeaseFencedError extends Error {
  /** `LeaseFencedError`. */
  override readonly name = 'LeaseFencedError';
  /** What was refused, e.g. `cloud call LoadBalancer.ensureLoadBalancer` or `API write POST /api/v1/...`. */
  readonly action: string;
  constructor(action: string, lease: string) {
    super(
      `${action} refused: this replica has not renewed lease ${lease} within the renew deadline, so it may no longer be the leader and must not act`,
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

/**
 * For one request about to be sent: throws {@link LeaseFencedError} when `fence` is fenced, otherwise returns a
 * signal that aborts with a LeaseFencedError when the fence closes, or undefined without a fence. The signal
 * fires on a timer, so it does not stop a request that a paused process writes on resuming before the timer
 * runs: with an undici client, use {@link leaseFenceInterceptor}, which checks at the moment of the write.
 */
export function fenceSignal(fence: LeaseFence | undefined, action: string): AbortSignal | undefined {
  if (!fence) return undefined;
  const left = fence.validForMs();
  if (left <= 0) throw new LeaseFencedError(action, fence.describe());
  if (!Number.isFinite(left)) return undefined;
  const ac = new AbortController();
  setTimeout(() => {
    // Asked again when the timer fires: asking a deposing fence (the manager's) is what deposes the leader.
    fence.isFenced();
    ac.abort(new LeaseFencedError(action, fence.describe()));
  }, left).unref();
  return ac.signal;
}

let processFence: LeaseFence | undefined;
let processDeposed = false;

/**
 * Installs the lease fence of this process (the manager does, with leader election on); undefined removes it.
 * Also clears {@link markProcessDeposed}.
 */
export function setProcessLeaseFence(fence: LeaseFence | undefined): void {
  processFence = fence;
  processDeposed = false;
}

/**
 * Marks this process' leader as deposed: it found itself fenced while acting and is about to exit, as upstream's
 * process does at once on a lost lease (docs/decisions/0052-fenced-leader-exits.md). From then on every
 * `EventBroadcaster` drops its events, unlogged and unwritten.
 */
export function markProcessDeposed(): void {
  processDeposed = true;
}

/** True once {@link markProcessDeposed} was called (and no fence was installed since). */
export function isProcessDeposed(): boolean {
  return processDeposed;
}

/** The lease fence of this process, if the manager installed one. */
export function processLeaseFence(): LeaseFence | undefined {
  return processFence;
}

/**
 * For a provider's HTTP client that is not built on undici, before each cloud request: {@link fenceSignal} with
 * the process' lease fence (installed by the manager with leader election on). A provider whose facet calls
 * make several requests (lookups, retries, waits for Retry-After) should check per request: the manager's check
 * before each facet call cannot stop the later requests of a call that was under way when the process was
 * paused. An undici client should compose {@link leaseFenceInterceptor} instead (or use `CloudCallGuard`'s
 * `ctx.dispatcher`), which also stops a request already queued when the fence closes.
 * @throws LeaseFencedError while fenced.
 */
export function leaseFenceSignal(action: string): AbortSignal | undefined {
  return fenceSignal(processFence, action);
}

/** Options of {@link leaseWriteGuard}. */
export interface LeaseWriteGuardOptions {
  /**
   * True once Events must be refused as well: a deposed leader records nothing more (it is about to exit, as
   * upstream's process does at once on a lost lease). Default: Events always pass.
   */
  refuseEvents?: () => boolean;
}

/**
 * A write guard for {@link RestTransport.setWriteGuard}: throws {@link LeaseFencedError} for every request but
 * GET/HEAD, Lease requests and Events while `fence()` is fenced. The transport runs it before a request enters
 * its queue and again at the moment the request is written to its connection.
 * @param fence returns the current fence (undefined while there is none yet: nothing is refused).
 */
export function leaseWriteGuard(
  fence: () => LeaseFence | undefined,
  options: LeaseWriteGuardOptions = {},
): (method: string, url: URL) => void {
  return (method, url) => {
    if (method === 'GET' || method === 'HEAD' || isLeaseRequest(url.pathname)) return;
    if (isEventRequest(url.pathname) && !options.refuseEvents?.()) return;
    checkFence(fence(), `API write ${method} ${url.pathname}`);
  };
}

/** Lease requests (the renewal itself) always pass the fence. */
function isLeaseRequest(path: string): boolean {
  return /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/[^/]+\/leases(\/|$)/.test(path);
}

/** Events (a record of what happened, not state) pass unless the guard's `refuseEvents` says otherwise. */
function isEventRequest(path: string): boolean {
  return /^\/api\/v1\/namespaces\/[^/]+\/events(\/|$)|^\/apis\/events\.k8s\.io\//.test(path);
}
