/**
 * The two-pass grace rule: a balancer is acted on only when two successful passes at least the grace period
 * apart both found it orphaned in the same way (same Service UID, same state). A pass that does not find it so
 * (its Service is back, or it is no longer listed) starts it over; a failed pass changes nothing.
 */
import type { OrphanState } from './classify.js';

/** What the collector remembers of one orphaned balancer. */
interface Sighting {
  readonly uid: string;
  readonly state: OrphanState;
  /** When a pass first found it so (ms, the collector's clock). */
  readonly firstSeenMs: number;
  /** True once its decision was logged and recorded as an Event (one per decision). */
  decided: boolean;
}

/** One orphan of the current pass. */
export interface Orphan {
  readonly name: string;
  readonly uid: string;
  readonly state: OrphanState;
}

/** An orphan whose grace period has passed. */
export interface DueOrphan extends Orphan {
  readonly firstSeenMs: number;
  /** True when this orphan's decision was already recorded on an earlier pass. */
  readonly decided: boolean;
}

export class OrphanSightings {
  readonly #byName = new Map<string, Sighting>();

  constructor(private readonly gracePeriodMs: number) {}

  /**
   * Records the orphans of one complete pass made at `nowMs` and returns those due: seen so on an earlier pass
   * at least the grace period before. Balancers not in `orphans` are forgotten.
   */
  observe(orphans: readonly Orphan[], nowMs: number): DueOrphan[] {
    const due: DueOrphan[] = [];
    const current = new Set<string>();
    for (const o of orphans) {
      current.add(o.name);
      const known = this.#byName.get(o.name);
      if (known === undefined || known.uid !== o.uid || known.state !== o.state) {
        this.#byName.set(o.name, { uid: o.uid, state: o.state, firstSeenMs: nowMs, decided: false });
        continue;
      }
      if (nowMs - known.firstSeenMs >= this.gracePeriodMs) {
        due.push({ ...o, firstSeenMs: known.firstSeenMs, decided: known.decided });
      }
    }
    for (const name of [...this.#byName.keys()]) if (!current.has(name)) this.#byName.delete(name);
    return due;
  }

  /** Marks the decision of `name` as recorded, so later passes do not repeat its Event. */
  markDecided(name: string): void {
    const s = this.#byName.get(name);
    if (s) s.decided = true;
  }

  /** Forgets `name` (deleted). */
  forget(name: string): void {
    this.#byName.delete(name);
  }

  /** How many balancers are remembered. */
  get size(): number {
    return this.#byName.size;
  }
}
