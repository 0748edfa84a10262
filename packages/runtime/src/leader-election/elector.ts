/**
 * Leader election on a Lease (client-go tools/leaderelection `LeaderElector`).
 *
 * - Acquire: try at once, then every `retryPeriodMs` × (1 + rand·1.2) until the lease is won or
 *   `signal` aborts. A lease held by another identity counts as expired only when its record has
 *   not changed for `leaseDurationSeconds` as judged by THIS process' clock from when it observed the
 *   last change, so clock skew between candidates is harmless.
 * - Win or lose a race: create (409 AlreadyExists = lost) or update with the resourceVersion read
 *   (409 Conflict = lost).
 * - Renew: every `retryPeriodMs`; each round retries every `retryPeriodMs` until `renewDeadlineMs`
 *   from its start, or until an attempt fails while the leader is fenced (its last renewal was sent
 *   more than `renewDeadlineMs` ago; ccm-kit, docs/decisions/0052-fenced-leader-exits.md). A round that
 *   fails ends leadership: the leading signal aborts, the `leader_election_master_status` gauge drops
 *   to 0 and `onStoppedLeading` runs.
 * - On cancel with `releaseOnCancel`: the leading signal aborts, the work is given up to
 *   `renewDeadlineMs` to settle (the fence stays open meanwhile, counting from the last renewal), and the
 *   Lease is released (holder '', duration 1 s) so another candidate takes over at once. A leader cancelled
 *   while fenced has lost the lease (docs/decisions/0052-fenced-leader-exits.md): it sends no release, which
 *   could only be refused or, worse, hand over a lease another candidate had taken meanwhile.
 *
 * Differences from client-go (recorded here and in docs/decisions if adopted): `onStoppedLeading`
 * runs only after `onStartedLeading` did (client-go calls it whenever Run returns), `onNewLeader`
 * is not called for an empty holder, and `leaseDurationSeconds` is rounded up, never down.
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage } from '@ccm-kit/cloud-provider/internal';
import { timerDelayMs } from '../wait/sleep.js';
import { isAlreadyExists, isConflict, isNotFound } from '../client/errors.js';
import { createLogger, type Logger } from '../logging.js';
import type { LeaseFence } from './fence.js';
import { leaderElectionJitterFactor } from './jitter-factor.js';
import { type LeaseClient, LeaseLock } from './lease-lock.js';
import { leaderElectionMasterStatus } from './metrics.js';
import { type LeaderElectionRecord, recordFingerprint } from './record.js';

/** Callbacks; exceptions and rejections are caught and logged. */
export interface LeaderCallbacks {
  /**
   * Called on winning; `signal` aborts when leadership is lost or the election is cancelled. May
   * return a promise (the work); with `releaseOnCancel` the release waits for it, up to the renew deadline.
   */
  onStartedLeading(signal: AbortSignal): unknown;
  /** Called once leadership has ended (only if it started). */
  onStoppedLeading?(): void;
  /** Called when the observed holder changes to a non-empty identity (including this process). */
  onNewLeader?(identity: string): void;
}

/** Options of {@link LeaderElector}; durations in milliseconds. */
export interface LeaderElectionOptions {
  /** The Lease API (e.g. `clients.client('leader-election', CoordinationV1Api)`). */
  client: LeaseClient;
  /** The Lease; default `kube-system/cloud-controller-manager`. */
  lock?: { namespace?: string; name?: string };
  /** Unique identity of this candidate; default `<hostname>_<uuid>`. */
  identity?: string;
  /** How long a lease lasts without renewal (default 15 000). Must exceed `renewDeadlineMs`. */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying a renewal before giving up (default 10 000). Must exceed 1.2 × `retryPeriodMs`. */
  renewDeadlineMs?: number;
  /** Time between attempts (default 2 000). */
  retryPeriodMs?: number;
  /** Release the lease when the election is cancelled (default false, as client-go). */
  releaseOnCancel?: boolean;
  /** Label of the `leader_election_master_status` gauge; default the lock name. */
  name?: string;
  /** What to run on gaining and losing the lease. */
  callbacks: LeaderCallbacks;
  /** Receives `"<identity> became leader"` / `"<identity> stopped leading"` (an event recorder hook). */
  recordEvent?: (message: string) => void;
  /** Monotonic clock in ms (tests). */
  now?: () => number;
}

/** The defaults of the cloud-controller-manager's `--leader-elect-*` flags. */
export const leaderElectionDefaults = {
  namespace: 'kube-system',
  name: 'cloud-controller-manager',
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
} as const;

/**
 * client-go `leaderelection.LeaderElector` on a Lease: acquires and renews it, runs `onStartedLeading` while it holds
 * it, and fences the process' writes and cloud calls once a renewal is overdue ({@link LeaseFence}).
 */
export class LeaderElector implements LeaseFence {
  /** This replica's identity, written as the Lease's `holderIdentity`. */
  readonly identity: string;
  /** The Lease it competes for. */
  readonly lock: LeaseLock;
  /** How long a non-leader waits before taking an unrenewed lease, in milliseconds. */
  readonly leaseDurationMs: number;
  /** How long the leader keeps retrying a renewal before it stops leading, in milliseconds. */
  readonly renewDeadlineMs: number;
  /** The pause between acquire or renew attempts, in milliseconds. */
  readonly retryPeriodMs: number;
  readonly #opts: LeaderElectionOptions;
  readonly #name: string;
  readonly #now: () => number;
  readonly #log: Logger;
  #observed: LeaderElectionRecord | undefined;
  #observedFingerprint = '';
  #observedAt = 0;
  #reportedLeader = '';
  #leading = false;
  /** Holds the lease: from acquiring it until it is lost or released (after leadership ends on a cancel). */
  #holding = false;
  #running = false;
  /** Monotonic time at which the last successful acquiring or renewing write was sent (-Infinity: never). */
  #renewedAt = Number.NEGATIVE_INFINITY;

  /** @throws RangeError naming the field when durations are inconsistent; Error for an empty identity. */
  constructor(opts: LeaderElectionOptions) {
    this.leaseDurationMs = opts.leaseDurationMs ?? leaderElectionDefaults.leaseDurationMs;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? leaderElectionDefaults.renewDeadlineMs;
    this.retryPeriodMs = opts.retryPeriodMs ?? leaderElectionDefaults.retryPeriodMs;
    if (!(this.leaseDurationMs > 0)) throw new RangeError(`leaseDurationMs must be > 0, got ${this.leaseDurationMs}`);
    if (!(this.renewDeadlineMs > 0)) throw new RangeError(`renewDeadlineMs must be > 0, got ${this.renewDeadlineMs}`);
    if (!(this.retryPeriodMs > 0)) throw new RangeError(`retryPeriodMs must be > 0, got ${this.retryPeriodMs}`);
    if (!(this.leaseDurationMs > this.renewDeadlineMs)) {
      throw new RangeError(
        `leaseDurationMs (${this.leaseDurationMs}) must be greater than renewDeadlineMs (${this.renewDeadlineMs})`,
      );
    }
    if (!(this.renewDeadlineMs > leaderElectionJitterFactor * this.retryPeriodMs)) {
      throw new RangeError(
        `renewDeadlineMs (${this.renewDeadlineMs}) must be greater than retryPeriodMs × ${leaderElectionJitterFactor} (${leaderElectionJitterFactor * this.retryPeriodMs})`,
      );
    }
    if (typeof opts.callbacks?.onStartedLeading !== 'function') throw new Error('callbacks.onStartedLeading: required');
    this.identity = opts.identity ?? `${os.hostname()}_${randomUUID()}`;
    if (!this.identity) throw new Error('identity: must not be empty');
    this.lock = new LeaseLock(
      opts.client,
      opts.lock?.namespace ?? leaderElectionDefaults.namespace,
      opts.lock?.name ?? leaderElectionDefaults.name,
    );
    this.#opts = opts;
    this.#name = opts.name ?? this.lock.name;
    this.#now = opts.now ?? (() => performance.now());
    this.#log = createLogger('leader-election').with({ lock: this.lock.describe(), identity: this.identity });
  }

  /** True while this candidate leads (between winning and stepping down). */
  isLeader(): boolean {
    return this.#leading;
  }

  /**
   * Fencing (ccm-kit, not client-go; docs/decisions/0050-lease-fencing.md): true unless this candidate holds the
   * lease and its last successful acquiring or renewing write was sent less than `renewDeadlineMs` ago on the
   * monotonic clock. It holds the lease while it leads and, after a cancel with `releaseOnCancel`, while its work
   * settles before the release. While fenced, the manager refuses cloud calls and API writes (see `checkFence`).
   */
  isFenced(): boolean {
    return this.validForMs() <= 0;
  }

  /** Milliseconds until this leader is fenced unless it renews first (≤ 0 when fenced or not holding the lease). */
  validForMs(): number {
    return this.#holding ? this.#renewedAt + this.renewDeadlineMs - this.#now() : 0;
  }

  /** `namespace/name` of the Lease. */
  describe(): string {
    return this.lock.describe();
  }

  /** The holder last observed ('' when none). */
  getLeader(): string {
    return this.#observed?.holderIdentity ?? '';
  }

  /**
   * client-go `LeaderElector.Check`: throws when this candidate leads but has not renewed for longer
   * than the lease duration plus `maxTolerableExpiredLeaseMs`. Healthy when not leading.
   */
  check(maxTolerableExpiredLeaseMs: number): void {
    if (!this.#leading) return;
    const since = this.#now() - this.#observedAt;
    if (since > this.leaseDurationMs + maxTolerableExpiredLeaseMs) {
      throw new Error(`failed election to renew leadership on lease ${this.lock.describe()}`);
    }
  }

  /**
   * Campaigns, leads, and returns when leadership is lost or `signal` aborts. Never rejects.
   * @throws Error when called while already running.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error('LeaderElector.run: already running');
    this.#running = true;
    this.#holding = false;
    leaderElectionMasterStatus.set({ name: this.#name }, 0);
    try {
      if (!(await this.#acquire(signal))) return;
      await this.#lead(signal);
    } finally {
      this.#running = false;
    }
  }

  async #lead(signal: AbortSignal): Promise<void> {
    this.#leading = true;
    this.#holding = true;
    leaderElectionMasterStatus.set({ name: this.#name }, 1);
    this.#opts.recordEvent?.(`${this.identity} became leader`);
    this.#log.info('successfully acquired lease');
    const leading = new AbortController();
    // Judged when the cancel comes: a renewal that lands afterwards does not undo a lease that counted as lost.
    let fencedOnCancel = false;
    const onAbort = () => {
      fencedOnCancel = this.isFenced();
      leading.abort(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    let work: Promise<unknown> = Promise.resolve();
    try {
      const r = this.#opts.callbacks.onStartedLeading(leading.signal);
      if (r && typeof (r as Promise<void>).then === 'function') {
        work = (r as Promise<void>).then(undefined, (err: unknown) => this.#log.error(err, 'onStartedLeading failed'));
      }
    } catch (err) {
      this.#log.error(err, 'onStartedLeading failed');
    }
    const lost = await this.#renewLoop(signal);
    this.#leading = false;
    leaderElectionMasterStatus.set({ name: this.#name }, 0);
    signal.removeEventListener('abort', onAbort);
    leading.abort(lost ? new Error('leadership lost') : signal.reason);
    if (lost) {
      this.#holding = false;
      this.#log.info('failed to renew lease; stopped leading');
    } else if (fencedOnCancel) {
      this.#holding = false;
      this.#log.info('stopped leading; the lease was not renewed within the renew deadline, so it is not released');
    } else if (this.#opts.releaseOnCancel) {
      await Promise.race([work, sleep(this.renewDeadlineMs, undefined, { ref: false })]);
      this.#holding = false;
      await this.#release();
    }
    this.#opts.recordEvent?.(`${this.identity} stopped leading`);
    try {
      this.#opts.callbacks.onStoppedLeading?.();
    } catch (err) {
      this.#log.error(err, 'onStoppedLeading failed');
    }
  }

  /** Loops until the lease is acquired (true) or `signal` aborts (false). */
  async #acquire(signal: AbortSignal): Promise<boolean> {
    this.#log.info('attempting to acquire leader lease');
    while (!signal.aborted) {
      const ok = await this.#tryAcquireOrRenew(signal);
      this.#maybeReportTransition();
      if (ok) return true;
      if (signal.aborted) return false;
      this.#log.v(4).info('failed to acquire lease');
      const wait = this.retryPeriodMs * (1 + Math.random() * leaderElectionJitterFactor);
      try {
        await sleep(wait, undefined, { signal });
      } catch {
        return false;
      }
    }
    return false;
  }

  /** Renews until a round fails (returns true: lost) or `signal` aborts (false). */
  async #renewLoop(signal: AbortSignal): Promise<boolean> {
    for (;;) {
      try {
        await sleep(this.retryPeriodMs, undefined, { signal });
      } catch {
        return false;
      }
      const deadline = AbortSignal.any([signal, AbortSignal.timeout(timerDelayMs(this.renewDeadlineMs))]);
      let ok = false;
      while (!deadline.aborted) {
        ok = await this.#tryAcquireOrRenew(deadline);
        this.#maybeReportTransition();
        if (ok || deadline.aborted) break;
        // Fenced (no renewal for the renew deadline, e.g. after a pause) and this attempt failed too: the lease
        // is lost now, not after another full round (ccm-kit; docs/decisions/0052-fenced-leader-exits.md).
        if (this.isFenced()) break;
        try {
          await sleep(this.retryPeriodMs, undefined, { signal: deadline });
        } catch {
          break;
        }
      }
      if (signal.aborted) return false;
      if (!ok) return true;
      this.#log.v(5).info('successfully renewed lease');
    }
  }

  #leaseDurationSeconds(): number {
    return Math.max(1, Math.ceil(this.leaseDurationMs / 1000));
  }

  #setObserved(r: LeaderElectionRecord): void {
    this.#observed = r;
    this.#observedFingerprint = recordFingerprint(r);
    this.#observedAt = this.#now();
  }

  #isLeaseValid(now: number): boolean {
    const r = this.#observed;
    if (!r) return false;
    return this.#observedAt + r.leaseDurationSeconds * 1000 > now;
  }

  /** client-go `tryAcquireOrRenew`: true when this candidate holds the lease afterwards. */
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const sentAt = await this.#tryAcquireOrRenewOnce(signal);
    // The lease is known to hold from when the write that took or renewed it was sent: the server wrote it
    // later, and other candidates count the lease duration from when they observe that write. Not from before
    // the read that precedes it, which an etcd outage can hold up for longer than the renew deadline (client-go
    // tools/leaderelection/leaderelection.go `tryAcquireOrRenew` takes its observedTime after the write too).
    if (sentAt !== undefined) this.#renewedAt = sentAt;
    return sentAt !== undefined;
  }

  /** One attempt; returns when the write that took or renewed the lease was sent, or undefined when none did. */
  async #tryAcquireOrRenewOnce(signal: AbortSignal): Promise<number | undefined> {
    const wall = new Date();
    const fresh: LeaderElectionRecord = {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.#leaseDurationSeconds(),
      acquireTime: wall,
      renewTime: wall,
      leaderTransitions: 0,
    };
    // Fast path: the leader renews without reading first while its lease is valid. As client-go's
    // `IsLeader()`, this needs the observed record to name this candidate: a leader that was paused and has
    // since read another holder's record must not overwrite it (it would steal a valid lease).
    const mine = this.#observed;
    if (
      this.#leading &&
      mine?.holderIdentity === this.identity &&
      this.lock.hasLease() &&
      this.#isLeaseValid(this.#now())
    ) {
      const rec: LeaderElectionRecord = {
        ...fresh,
        leaderTransitions: mine.leaderTransitions,
        ...(mine.acquireTime ? { acquireTime: mine.acquireTime } : {}),
      };
      const sentAt = this.#now();
      try {
        await this.lock.update(rec, signal);
        this.#setObserved(rec);
        return sentAt;
      } catch (err) {
        if (signal.aborted) return undefined;
        this.#log.warn('failed to update lease optimistically; falling back to slow path', {
          err: errorMessage(err),
        });
      }
    }

    let old: LeaderElectionRecord;
    try {
      old = await this.lock.get(signal);
    } catch (err) {
      if (!isNotFound(err)) {
        if (!signal.aborted) this.#log.warn('error retrieving lease', { err: errorMessage(err) });
        return undefined;
      }
      const sentAt = this.#now();
      try {
        await this.lock.create(fresh, signal);
      } catch (cerr) {
        if (!signal.aborted && !isAlreadyExists(cerr))
          this.#log.warn('error creating lease', { err: errorMessage(cerr) });
        return undefined;
      }
      this.#setObserved(fresh);
      return sentAt;
    }

    if (recordFingerprint(old) !== this.#observedFingerprint) this.#setObserved(old);
    const now = this.#now();
    if (old.holderIdentity !== '' && old.holderIdentity !== this.identity && this.#isLeaseValid(now)) {
      this.#log.v(4).info('lock is held by another candidate and has not yet expired', { holder: old.holderIdentity });
      return undefined;
    }

    const rec: LeaderElectionRecord = { ...fresh };
    if (old.holderIdentity === this.identity) {
      rec.leaderTransitions = old.leaderTransitions;
      if (old.acquireTime) rec.acquireTime = old.acquireTime;
    } else {
      rec.leaderTransitions = old.leaderTransitions + 1;
    }
    const sentAt = this.#now();
    try {
      await this.lock.update(rec, signal);
    } catch (err) {
      if (!signal.aborted && !isConflict(err)) this.#log.warn('failed to update lease', { err: errorMessage(err) });
      return undefined;
    }
    this.#setObserved(rec);
    return sentAt;
  }

  /** client-go `release`: holder '' and a 1 s duration, so the next candidate need not wait. */
  async #release(): Promise<void> {
    const obs = this.#observed;
    if (!obs || obs.holderIdentity !== this.identity || !this.lock.hasLease()) return;
    const now = new Date();
    const rec: LeaderElectionRecord = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaderTransitions: obs.leaderTransitions,
    };
    try {
      await this.lock.update(rec, AbortSignal.timeout(timerDelayMs(this.renewDeadlineMs)));
      this.#setObserved(rec);
      this.#log.info('released lease');
    } catch (err) {
      this.#log.warn('failed to release lease', { err: errorMessage(err) });
    }
  }

  #maybeReportTransition(): void {
    const holder = this.#observed?.holderIdentity ?? '';
    if (holder === this.#reportedLeader) return;
    this.#reportedLeader = holder;
    if (holder === '') return;
    if (holder !== this.identity) this.#log.info('new leader elected', { leader: holder });
    try {
      this.#opts.callbacks.onNewLeader?.(holder);
    } catch (err) {
      this.#log.error(err, 'onNewLeader failed');
    }
  }
}

/**
 * Runs a leader election until leadership is lost or `signal` aborts; resolves then. Never rejects.
 * @throws (synchronously, as a rejected promise) the option errors of {@link LeaderElector}.
 */
export async function runLeaderElection(opts: LeaderElectionOptions & { signal: AbortSignal }): Promise<void> {
  const { signal, ...rest } = opts;
  await new LeaderElector(rest).run(signal);
}
