/**
 * The node modifiers of initialization: idempotent edits applied to a fresh copy of the Node on every
 * attempt of the conflict-retried PUT. Follows upstream `controllers/node/node_controller.go`
 * (`getNodeModifiersFromCloudProvider`, the taint-removal modifier of `syncNode`).
 * Upstream `k8s.io/cloud-provider controllers/node/node_controller.go`; upstream quirks 17, 19, 20 in docs/upstream-quirks.md.
 */
import {
  type InstanceMetadata,
  LABEL_FAILURE_DOMAIN_BETA_REGION,
  LABEL_FAILURE_DOMAIN_BETA_ZONE,
  LABEL_INSTANCE_TYPE,
  LABEL_INSTANCE_TYPE_STABLE,
  LABEL_TOPOLOGY_REGION,
  LABEL_TOPOLOGY_ZONE,
} from '@ccm-kit/cloud-provider';
import { deepCopy, errorMessage } from '@ccm-kit/cloud-provider/internal';
import type { V1Node } from '@kubernetes/client-node';
import { applyProvidedNodeIP } from './addresses.js';
import { excludeCloudTaint } from './cloud-taint.js';
import { applyAdditionalLabels, type DiscardedLabel } from './labels.js';

/** An idempotent in-place edit of a Node copy. */
export type NodeModifier = (node: V1Node) => void;

/** Receives the additional labels a modifier refused (for the controller's warnings). */
export type DiscardedLabelSink = (discarded: DiscardedLabel) => void;

function setLabels(node: V1Node, entries: Record<string, string>): void {
  node.metadata ??= {};
  node.metadata.labels = { ...(node.metadata.labels ?? {}), ...entries };
}

/**
 * The modifiers derived from the cloud's metadata, in upstream's order: providerID (only when the Node has
 * none and the metadata has one), instance-type, zone and region label pairs (beta + GA, skipped when empty),
 * then the filtered additional labels. Labels absent from the metadata are never removed.
 *
 * The provided-node-ip annotation is validated first against `metadata.nodeAddresses` (it adds no modifier).
 * @throws Error `provided node ip for node "<name>" is not valid: <err>` when that validation fails
 *   (initialization then fails and the taint stays).
 */
export function nodeModifiersFromMetadata(
  node: V1Node,
  metadata: InstanceMetadata,
  onDiscarded: DiscardedLabelSink = () => {},
): NodeModifier[] {
  const modifiers: NodeModifier[] = [];
  const providerID = metadata.providerID ?? '';
  if (!node.spec?.providerID && providerID !== '') {
    modifiers.push((n) => {
      n.spec ??= {};
      n.spec.providerID = providerID;
    });
  }
  try {
    applyProvidedNodeIP(node, [...(metadata.nodeAddresses ?? [])]);
  } catch (err) {
    const message = errorMessage(err);
    throw new Error(`provided node ip for node "${node.metadata?.name ?? ''}" is not valid: ${message}`, {
      cause: err,
    });
  }
  const { instanceType, zone, region } = metadata;
  if (instanceType) {
    modifiers.push((n) =>
      setLabels(n, { [LABEL_INSTANCE_TYPE]: instanceType, [LABEL_INSTANCE_TYPE_STABLE]: instanceType }),
    );
  }
  if (zone) {
    modifiers.push((n) => setLabels(n, { [LABEL_FAILURE_DOMAIN_BETA_ZONE]: zone, [LABEL_TOPOLOGY_ZONE]: zone }));
  }
  if (region) {
    modifiers.push((n) =>
      setLabels(n, { [LABEL_FAILURE_DOMAIN_BETA_REGION]: region, [LABEL_TOPOLOGY_REGION]: region }),
    );
  }
  const additional = metadata.additionalLabels;
  if (additional && Object.keys(additional).length > 0) {
    modifiers.push((n) => {
      n.metadata ??= {};
      n.metadata.labels ??= {};
      for (const d of applyAdditionalLabels(n.metadata.labels, additional)) onDiscarded(d);
    });
  }
  return modifiers;
}

/** The final modifier of initialization: removes every taint with the uninitialized key. */
export const removeCloudTaint: NodeModifier = (n) => {
  n.spec ??= {};
  n.spec.taints = excludeCloudTaint(n.spec.taints);
};

/** Applies `modifiers` in order to a deep copy of `node` and returns the copy. */
export function applyModifiers(node: V1Node, modifiers: readonly NodeModifier[]): V1Node {
  const copy = deepCopy(node);
  for (const modify of modifiers) modify(copy);
  return copy;
}
