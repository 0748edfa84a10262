/**
 * `DeletedFinalStateUnknown` (client-go tools/cache): handed to delete handlers for an object that
 * vanished while the watch was down, found missing on a relist. `obj` is the last state the cache held.
 */
import type { DeletedFinalStateUnknown } from '@ccm-kit/cloud-provider';

/** Creates a tombstone for `key` holding the last known `obj`. */
export function createTombstone<T>(key: string, obj: T): DeletedFinalStateUnknown<T> {
  return Object.freeze({ key, obj, deletedFinalStateUnknown: true as const });
}

/** True for a tombstone (as opposed to an object). */
export function isTombstone<T>(x: T | DeletedFinalStateUnknown<T> | unknown): x is DeletedFinalStateUnknown<T> {
  return (
    typeof x === 'object' &&
    x !== null &&
    (x as { deletedFinalStateUnknown?: unknown }).deletedFinalStateUnknown === true
  );
}

/** The object of a delete notification, unwrapping a tombstone. */
export function objectOfDelete<T>(x: T | DeletedFinalStateUnknown<T>): T {
  return isTombstone<T>(x) ? x.obj : (x as T);
}
