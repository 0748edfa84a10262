/**
 * The narrow dependencies of the service load-balancer controller, so that tests can supply fakes and the
 * descriptor can supply `@ccm-kit/runtime`'s real queue, recorder and API client.
 */
import type { ReconcileQueue } from '@ccm-kit/runtime';
import type { V1ObjectReference } from '@kubernetes/client-node';

/**
 * The workqueue operations the controller uses: what the runtime loop needs plus `add` and `numRequeues`
 * (client-go rate-limiting queue semantics; delays in ms).
 */
export interface KeyQueue extends ReconcileQueue<string> {
  add(key: string): void;
  /** How many times `key` was requeued since the last forget. */
  numRequeues(key: string): number;
}

/** Records a Kubernetes Event about an object (`type` is `Normal` or `Warning`). Never throws. */
export interface ServiceEventRecorder {
  event(ref: V1ObjectReference, type: 'Normal' | 'Warning', reason: string, message: string): void;
}
