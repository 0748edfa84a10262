/**
 * What the cloud budget records for each call it lets through, published to subscribers (tracing) through a
 * Node `diagnostics_channel`, which costs nothing while nobody subscribes.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import type { CloudLane } from './lane.js';

/** One call let through by the cloud budget. */
export interface CloudBudgetCharge {
  /** The lane it was charged to (`'user'` when none was set). */
  lane: CloudLane;
  /** The controller that made it (`withCloudController`), or `'unknown'`. */
  controller: string;
  /** What was called: a facet method (`loadBalancer.ensureLoadBalancer`) or a guard operation (`list_servers`). */
  operation: string;
  /** Milliseconds the call waited in the budget for its token (0 without a limit). */
  waitedMs: number;
}

const channel = diagnosticsChannel.channel('ccm-kit:cloud-budget:charge');

/**
 * Subscribes to every call the budget lets through. The listener runs synchronously in the caller's
 * asynchronous context, after the token was granted and before the call is sent, so an active tracing span of
 * that call is current. Returns the function that unsubscribes.
 */
export function onCloudBudgetCharge(listener: (charge: CloudBudgetCharge) => void): () => void {
  const handler = (message: unknown) => listener(message as CloudBudgetCharge);
  channel.subscribe(handler);
  return () => {
    channel.unsubscribe(handler);
  };
}

/** Publishes `charge` to the subscribers, if any. */
export function publishCloudBudgetCharge(charge: CloudBudgetCharge): void {
  if (channel.hasSubscribers) channel.publish(charge);
}
