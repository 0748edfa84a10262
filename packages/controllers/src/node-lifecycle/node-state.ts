/**
 * Pure Node predicates of the cloud-node-lifecycle controller. Follows upstream
 * `controllers/nodelifecycle/node_lifecycle_controller.go` (`MonitorNodes`, `ShutdownTaint`) and
 * component-helpers `GetNodeCondition`. Upstream `k8s.io/cloud-provider controllers/nodelifecycle/node_lifecycle_controller.go`.
 */
import { TAINT_NODE_SHUTDOWN } from '@ccm-kit/cloud-provider';
import type { V1Node, V1Taint } from '@kubernetes/client-node';

/** The taint put on shut-down Nodes: key `node.cloudprovider.kubernetes.io/shutdown`, effect `NoSchedule`, no value. */
export const SHUTDOWN_TAINT: Readonly<V1Taint> = Object.freeze({
  key: TAINT_NODE_SHUTDOWN,
  effect: 'NoSchedule',
});

/** The status of the Node's first `Ready` condition, or `'Unknown'` when it has none. */
export function readyConditionStatus(node: V1Node): string {
  return node.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
}

/** True when the Node carries a taint matching `taint` by key and effect (upstream `taintExists`). */
export function hasTaint(node: V1Node, taint: Readonly<V1Taint>): boolean {
  return (node.spec?.taints ?? []).some((t) => t.key === taint.key && t.effect === taint.effect);
}
