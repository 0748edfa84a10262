/**
 * Which Node updates trigger a pass in watch-based mode (gate `CloudControllerManagerWatchBasedRoutesReconciliation`).
 * Follows upstream `controllers/route/route_controller.go` (`handleNodeUpdate`).
 */
import type { V1Node } from '@kubernetes/client-node';
import { deepEqualNilStrict } from '../shared/deep-equal.js';

/**
 * True on an informer resync (equal `resourceVersion`s, the periodic cleanup pass), or when `spec.podCIDRs` or
 * `status.addresses` differ by strict deep-equality (nil and `[]` differ).
 */
export function nodeUpdateAffectsRoutes(oldNode: V1Node, newNode: V1Node): boolean {
  const resync = (oldNode.metadata?.resourceVersion ?? '') === (newNode.metadata?.resourceVersion ?? '');
  return (
    resync ||
    !deepEqualNilStrict(oldNode.spec?.podCIDRs, newNode.spec?.podCIDRs) ||
    !deepEqualNilStrict(oldNode.status?.addresses, newNode.status?.addresses)
  );
}
