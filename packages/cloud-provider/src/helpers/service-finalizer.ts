/**
 * The service controller's load-balancer finalizer.
 * Follows upstream `k8s.io/cloud-provider` `service/helpers/helper.go` (`HasLBFinalizer`) and the service
 * controller's `addFinalizer`, `removeFinalizer` (`controllers/service/controller.go`).
 * Pure functions: inputs are never modified.
 */
import type { V1Service } from '@kubernetes/client-node';
import { LOAD_BALANCER_CLEANUP_FINALIZER } from '../well-known.js';
import { deepCopy } from './deep-copy.js';

/** True when `metadata.finalizers` contains exactly `service.kubernetes.io/load-balancer-cleanup`. */
export function hasLBFinalizer(service: Pick<V1Service, 'metadata'>): boolean {
  return (service.metadata?.finalizers ?? []).includes(LOAD_BALANCER_CLEANUP_FINALIZER);
}

/**
 * A copy of `service` with the load-balancer finalizer appended, or `undefined` when it is already there
 * (upstream adds it only when missing, and then sends a patch).
 */
export function addLBFinalizer<T extends Pick<V1Service, 'metadata'>>(service: T): T | undefined {
  if (hasLBFinalizer(service)) return undefined;
  const copy = deepCopy(service);
  copy.metadata = {
    ...copy.metadata,
    finalizers: [...(copy.metadata?.finalizers ?? []), LOAD_BALANCER_CLEANUP_FINALIZER],
  };
  return copy;
}

/**
 * A copy of `service` without any occurrence of the load-balancer finalizer, or `undefined` when it has none.
 * The finalizer list is removed (`undefined`) when it becomes empty, as upstream's `nil`.
 */
export function removeLBFinalizer<T extends Pick<V1Service, 'metadata'>>(service: T): T | undefined {
  if (!hasLBFinalizer(service)) return undefined;
  const copy = deepCopy(service);
  const rest = (copy.metadata?.finalizers ?? []).filter((f) => f !== LOAD_BALANCER_CLEANUP_FINALIZER);
  copy.metadata = { ...copy.metadata, finalizers: rest.length > 0 ? rest : undefined };
  return copy;
}
