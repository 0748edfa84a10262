/**
 * The narrow dependencies of the service load-balancer controller, so that tests can supply fakes and the
 * descriptor can supply `@ccm-kit/runtime`'s real queue, recorder and API client.
 */
import type { V1ObjectReference } from '@kubernetes/client-node';

/** The workqueue operations the controller uses (client-go rate-limiting queue semantics; delays in ms). */
export interface KeyQueue {
  add(key: string): void;
  /** Adds `key` after `delayMs` milliseconds; the earlier deadline wins when it is already waiting. */
  addAfter(key: string, delayMs: number): void;
  /** Adds `key` after its rate limiter's delay (and counts a requeue). */
  addRateLimited(key: string): void;
  /** Resets `key`'s failure count. */
  forget(key: string): void;
  /** How many times `key` was requeued since the last forget. */
  numRequeues(key: string): number;
  /** The next key, or `undefined` once the queue is shut down. */
  get(): Promise<string | undefined>;
  /** Marks `key` done; a key re-added while being processed is queued again now. */
  done(key: string): void;
  shutDown(): void;
}

/** Records a Kubernetes Event about an object (`type` is `Normal` or `Warning`). Never throws. */
export interface ServiceEventRecorder {
  event(ref: V1ObjectReference, type: 'Normal' | 'Warning', reason: string, message: string): void;
}
