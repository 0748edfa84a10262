/**
 * A deposed leader stops at once (ccm-kit; docs/decisions/0052-fenced-leader-exits.md). The lease fence
 * (docs/decisions/0050-lease-fencing.md) refuses a leader's cloud calls and API writes once its last renewal is
 * older than the renew deadline; that is when client-go's renew loop would give up too, only noticed earlier.
 * The first time a check finds the leading replica fenced, it is deposed: the fence stays closed for good (a
 * later renewal does not reopen it), the controllers' signal aborts, Events are refused from then on, and
 * `onDeposed` reports the lost lease, which the manager turns into upstream's exit (`leaderelection lost`,
 * status 1). A refusal is therefore never retried, never becomes a Warning Event, and cannot repeat in a loop.
 */
import { type LeaseFence, LeaseFencedError } from '@ccm-kit/runtime/leader-election';

export class Deposition {
  readonly #fence: () => LeaseFence | undefined;
  readonly #leading: () => boolean;
  readonly #onDeposed: (lease: string) => void;
  readonly #controller = new AbortController();

  /**
   * @param fence the current fence (undefined: no leader election, nothing is refused).
   * @param leading true while this replica leads: only a leader is deposed; a refusal on a standby (a provider's
   *   background request) stays an ordinary refusal.
   * @param onDeposed called once, synchronously, with the lease (`namespace/name`) when the leader is deposed.
   */
  constructor(fence: () => LeaseFence | undefined, leading: () => boolean, onDeposed: (lease: string) => void) {
    this.#fence = fence;
    this.#leading = leading;
    this.#onDeposed = onDeposed;
  }

  /** Aborts (with a `LeaseFencedError`) when the leader is deposed. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True once deposed. */
  get deposed(): boolean {
    return this.#controller.signal.aborted;
  }

  /**
   * The fence the leader's work checks: the underlying fence, closed for good once deposed. A check that finds
   * it fenced while leading deposes the leader (every caller of `isFenced`/`validForMs` refuses on that answer).
   */
  readonly fence: LeaseFence = {
    isFenced: () => this.#validForMs() <= 0,
    validForMs: () => this.#validForMs(),
    describe: () => this.#fence()?.describe() ?? '',
  };

  #validForMs(): number {
    if (this.deposed) return 0;
    const f = this.#fence();
    if (!f) return Number.POSITIVE_INFINITY;
    const left = f.validForMs();
    if (left <= 0 && this.#leading()) {
      this.#controller.abort(new LeaseFencedError('leader work', f.describe()));
      this.#onDeposed(f.describe());
    }
    return left;
  }
}
