/**
 * The `NetworkUnavailable` Node condition the route controller owns. Follows upstream
 * `controllers/route/route_controller.go` (`updateNetworkingCondition`) and `k8s.io/component-helpers`
 * `node/util.SetNodeCondition` (a strategic merge patch of `nodes/<name>/status` carrying one condition,
 * merged by type; both timestamps set to now).
 */
import {
  NETWORK_UNAVAILABLE_MESSAGE_NO_ROUTE_CREATED,
  NETWORK_UNAVAILABLE_MESSAGE_ROUTE_CREATED,
  NETWORK_UNAVAILABLE_REASON_NO_ROUTE_CREATED,
  NETWORK_UNAVAILABLE_REASON_ROUTE_CREATED,
  NODE_CONDITION_NETWORK_UNAVAILABLE,
} from '@ccm-kit/cloud-provider';
import type { V1Node } from '@kubernetes/client-node';

/** The condition type. */
export const NETWORK_UNAVAILABLE = NODE_CONDITION_NETWORK_UNAVAILABLE;
/** Reason and message when every route of the Node exists (status `False`). */
export const ROUTE_CREATED = Object.freeze({
  reason: NETWORK_UNAVAILABLE_REASON_ROUTE_CREATED,
  message: NETWORK_UNAVAILABLE_MESSAGE_ROUTE_CREATED,
});
/** Reason and message otherwise (status `True`). */
export const NO_ROUTE_CREATED = Object.freeze({
  reason: NETWORK_UNAVAILABLE_REASON_NO_ROUTE_CREATED,
  message: NETWORK_UNAVAILABLE_MESSAGE_NO_ROUTE_CREATED,
});

/** The condition as sent on the wire (field order as Go marshals `v1.NodeCondition`; times RFC 3339, seconds). */
export interface NetworkConditionBody {
  type: string;
  status: 'True' | 'False';
  lastHeartbeatTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** The strategic-merge-patch body for `nodes/<name>/status`. */
export interface NetworkConditionPatch {
  status: { conditions: [NetworkConditionBody] };
}

/** A `metav1.Time` as Go marshals it: UTC, whole seconds (`2026-01-02T03:04:05Z`). */
export function formatMetaTime(at: Date): string {
  return new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * False when the Node already carries the wanted condition: `False`/`RouteCreated` when `routesCreated`,
 * `True`/`NoRouteCreated` otherwise. A matching status with another reason (for example a CNI's) needs a write.
 */
export function networkConditionNeedsUpdate(node: V1Node, routesCreated: boolean): boolean {
  const cond = node.status?.conditions?.find((c) => c.type === NETWORK_UNAVAILABLE);
  if (!cond) return true;
  if (routesCreated) return !(cond.status === 'False' && cond.reason === ROUTE_CREATED.reason);
  return !(cond.status === 'True' && cond.reason === NO_ROUTE_CREATED.reason);
}

/** The condition to write: both timestamps are `now` on every write, even when only the reason changes. */
export function networkUnavailableCondition(routesCreated: boolean, now: Date): NetworkConditionBody {
  const t = formatMetaTime(now);
  const rm = routesCreated ? ROUTE_CREATED : NO_ROUTE_CREATED;
  return {
    type: NETWORK_UNAVAILABLE,
    status: routesCreated ? 'False' : 'True',
    lastHeartbeatTime: t,
    lastTransitionTime: t,
    reason: rm.reason,
    message: rm.message,
  };
}

/** `{"status":{"conditions":[<condition>]}}`. */
export function networkConditionPatch(condition: NetworkConditionBody): NetworkConditionPatch {
  return { status: { conditions: [condition] } };
}
