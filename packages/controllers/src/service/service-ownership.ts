/**
 * Which Services this controller serves and which it cleans up: the one definition of `wantsLoadBalancer` and
 * `needsCleanup`. Follows upstream `controllers/service/controller.go` (`wantsLoadBalancer`, `needsCleanup`), plus
 * the beyond-upstream `loadBalancerClass` option and class-change cleanup (docs/decisions/0203, 0051).
 */
import { hasLBFinalizer } from '@ccm-kit/cloud-provider';
import type { V1Service } from '@kubernetes/client-node';

/**
 * True when the Service should have a cloud load balancer from this controller: type `LoadBalancer` and
 * - upstream (`loadBalancerClass` undefined): no `spec.loadBalancerClass` at all — any class, even `""`, opts out;
 * - beyond upstream (`loadBalancerClass` given): `spec.loadBalancerClass` equals it; Services without a class
 *   are then left to another implementation.
 */
export function wantsLoadBalancer(service: Pick<V1Service, 'spec'>, loadBalancerClass?: string): boolean {
  if (service.spec?.type !== 'LoadBalancer') return false;
  // `?? undefined`: a stray `null` is no class, as Go's nil pointer.
  return (service.spec.loadBalancerClass ?? undefined) === loadBalancerClass;
}

/**
 * Beyond upstream, only with the `loadBalancerClass` option: true for a Service of type `LoadBalancer` whose
 * class is not the configured one (no class included). Another implementation serves it, possibly with the
 * same cleanup finalizer, so this controller never cleans it up nor touches its finalizer
 * (docs/decisions/0203-service-load-balancer-class-ownership.md). Always false without the option.
 */
export function isForeignLoadBalancer(service: Pick<V1Service, 'spec'>, loadBalancerClass?: string): boolean {
  if (loadBalancerClass === undefined) return false;
  return service.spec?.type === 'LoadBalancer' && !wantsLoadBalancer(service, loadBalancerClass);
}

/**
 * Beyond upstream, without the `loadBalancerClass` option: a `LoadBalancer` Service with a class that still
 * carries the cleanup finalizer (and is not being deleted). A class can be set only together with a switch to
 * `LoadBalancer`, so a Service this controller served went through another type first; when the controller
 * missed that (it restarted in between), upstream never looks at the Service again and its load balancer leaks.
 * Such a Service is cleaned up if this controller's cloud has a load balancer for it
 * (docs/decisions/0051-service-class-change-cleanup.md).
 */
export function leftByClassChange(service: Pick<V1Service, 'metadata' | 'spec'>, loadBalancerClass?: string): boolean {
  if (loadBalancerClass !== undefined) return false;
  const cls = service.spec?.loadBalancerClass;
  return (
    service.spec?.type === 'LoadBalancer' &&
    cls !== undefined &&
    cls !== null &&
    hasLBFinalizer(service) &&
    !service.metadata?.deletionTimestamp
  );
}

/**
 * Upstream `needsCleanup`: the cleanup finalizer, and being deleted (`metadata.deletionTimestamp` set) or no longer
 * of type `LoadBalancer`. Except that with the `loadBalancerClass` option a Service of another class never needs
 * cleanup by this controller, and without it a Service {@link leftByClassChange} does.
 */
export function needsCleanup(service: Pick<V1Service, 'metadata' | 'spec'>, loadBalancerClass?: string): boolean {
  if (leftByClassChange(service, loadBalancerClass)) return true;
  if (!hasLBFinalizer(service) || isForeignLoadBalancer(service, loadBalancerClass)) return false;
  const deleting = service.metadata?.deletionTimestamp !== undefined && service.metadata.deletionTimestamp !== null;
  return deleting || service.spec?.type !== 'LoadBalancer';
}
