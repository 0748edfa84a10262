/**
 * Pure label logic of the cloud-node controller: the beta → GA reconciliation of initialized Nodes and
 * the filter applied to a provider's additional labels.
 *
 * Follows upstream `controllers/node/node_controller.go` (`labelReconcileInfo`, `reconcileNodeLabels`,
 * the additional-labels modifier). Upstream `k8s.io/cloud-provider controllers/node/node_controller.go`; upstream quirks 18–20 in docs/upstream-quirks.md.
 */
import {
  LABEL_FAILURE_DOMAIN_BETA_REGION,
  LABEL_FAILURE_DOMAIN_BETA_ZONE,
  LABEL_INSTANCE_TYPE,
  LABEL_INSTANCE_TYPE_STABLE,
  LABEL_TOPOLOGY_REGION,
  LABEL_TOPOLOGY_ZONE,
} from '@ccm-kit/cloud-provider';

/** One label pair to keep consistent: the primary (beta) label is the source of truth for the secondary (GA). */
export interface LabelReconcilePair {
  readonly primaryKey: string;
  readonly secondaryKey: string;
}

/** The three pairs upstream reconciles, primary = beta, secondary = GA; never copied GA → beta. */
export const LABEL_RECONCILE_PAIRS: readonly LabelReconcilePair[] = Object.freeze([
  { primaryKey: LABEL_FAILURE_DOMAIN_BETA_ZONE, secondaryKey: LABEL_TOPOLOGY_ZONE },
  { primaryKey: LABEL_FAILURE_DOMAIN_BETA_REGION, secondaryKey: LABEL_TOPOLOGY_REGION },
  { primaryKey: LABEL_INSTANCE_TYPE, secondaryKey: LABEL_INSTANCE_TYPE_STABLE },
]);

/**
 * The labels to write so that every GA label matches its beta label (upstream `reconcileNodeLabels`).
 * For each pair whose beta label exists, the GA label is set when missing or different. A pair without
 * its beta label is skipped. Returns an empty object when nothing needs writing (also for no labels).
 */
export function labelsToReconcile(labels: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!labels) return out;
  for (const { primaryKey, secondaryKey } of LABEL_RECONCILE_PAIRS) {
    if (!Object.hasOwn(labels, primaryKey)) continue;
    const primary = labels[primaryKey]!;
    if (!Object.hasOwn(labels, secondaryKey) || labels[secondaryKey] !== primary) out[secondaryKey] = primary;
  }
  return out;
}

/** Matches label keys in a Kubernetes-owned domain: `kubernetes.io/`, `k8s.io/` or any subdomain of them. */
export const KUBERNETES_LABEL_NAMESPACE = /(^|\.)(kubernetes|k8s)\.io\//;

/** Why an additional label was not applied. */
export type DiscardReason = 'kubernetes-namespace' | 'already-present';

/** A provider label that {@link applyAdditionalLabels} did not apply. */
export interface DiscardedLabel {
  key: string;
  reason: DiscardReason;
  /** True when the label already existed with a different value (upstream warns only then). */
  conflicting: boolean;
}

/**
 * Applies a provider's `additionalLabels` to `labels` in place (upstream's additional-labels modifier):
 * keys in a Kubernetes domain ({@link KUBERNETES_LABEL_NAMESPACE}) are dropped; a key already present keeps
 * its existing value (including the zone/region/type labels set earlier in the same pass); others are set.
 * Returns the discarded keys so the caller can log them.
 */
export function applyAdditionalLabels(
  labels: Record<string, string>,
  additional: Readonly<Record<string, string>>,
): DiscardedLabel[] {
  const discarded: DiscardedLabel[] = [];
  for (const [key, value] of Object.entries(additional)) {
    if (KUBERNETES_LABEL_NAMESPACE.test(key)) {
      discarded.push({ key, reason: 'kubernetes-namespace', conflicting: false });
      continue;
    }
    if (Object.hasOwn(labels, key)) {
      discarded.push({ key, reason: 'already-present', conflicting: labels[key] !== value });
      continue;
    }
    labels[key] = value;
  }
  return discarded;
}
