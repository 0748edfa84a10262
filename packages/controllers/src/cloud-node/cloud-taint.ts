/**
 * The uninitialized taint as the cloud-node controller sees it: matched by **key only**, whatever its
 * effect or value. Follows upstream `controllers/node/node_controller.go` (`getCloudTaint`,
 * `excludeCloudTaint`). Upstream `k8s.io/cloud-provider controllers/node/node_controller.go`.
 */
import { TAINT_EXTERNAL_CLOUD_PROVIDER } from '@ccm-kit/cloud-provider';
import type { V1Node, V1Taint } from '@kubernetes/client-node';

/** The first taint with key `node.cloudprovider.kubernetes.io/uninitialized`, or `undefined`. */
export function getCloudTaint(taints: readonly V1Taint[] | undefined): V1Taint | undefined {
  return taints?.find((t) => t.key === TAINT_EXTERNAL_CLOUD_PROVIDER);
}

/** True while the Node still carries the uninitialized taint (by key). */
export function isUninitialized(node: V1Node): boolean {
  return getCloudTaint(node.spec?.taints) !== undefined;
}

/** A new list without **any** taint carrying the uninitialized key; always a (possibly empty) array. */
export function excludeCloudTaint(taints: readonly V1Taint[] | undefined): V1Taint[] {
  return (taints ?? []).filter((t) => t.key !== TAINT_EXTERNAL_CLOUD_PROVIDER);
}
