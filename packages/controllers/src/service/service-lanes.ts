/**
 * The cloud lane each queued Service key is synced in (docs/cloud-call-guard.md): `user` for a new or changed
 * LoadBalancer Service and a deletion, `hosts` for a retry after a failed host update, `periodic` for what only
 * a resync queued (the cleanup resync, a Service already provisioned seen again at start-up). A key queued for
 * several reasons keeps the highest lane. A key with no record syncs as `user`, so nothing unclassified waits.
 */
import { CLOUD_LANES, type CloudLane } from '@ccm-kit/runtime/budget';

const rank = (lane: CloudLane) => CLOUD_LANES.indexOf(lane);

export class ServiceLanes {
  readonly #lanes = new Map<string, CloudLane>();

  /** Records that `key` was queued for work of `lane`. */
  mark(key: string, lane: CloudLane): void {
    const had = this.#lanes.get(key);
    if (had === undefined || rank(lane) < rank(had)) this.#lanes.set(key, lane);
  }

  /** The lane of the sync starting now for `key` (`user` without a record); the record is cleared. */
  take(key: string): CloudLane {
    const lane = this.#lanes.get(key) ?? 'user';
    this.#lanes.delete(key);
    return lane;
  }
}
