/**
 * The queue shape of the service load-balancer controller, so that tests can supply a recording queue and the
 * controller its `@ccm-kit/runtime` `Workqueue`.
 */
import type { ReconcileQueue } from '@ccm-kit/runtime/controller';

/**
 * The workqueue operations the controller uses: what the runtime loop needs plus `add` and `numRequeues`
 * (client-go rate-limiting queue semantics; delays in ms).
 */
export interface KeyQueue extends ReconcileQueue<string> {
  add(key: string): void;
  /** How many times `key` was requeued since the last forget. */
  numRequeues(key: string): number;
}
