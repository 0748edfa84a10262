/**
 * Which Services this controller serves. Follows upstream `controllers/service/controller.go` (`wantsLoadBalancer`),
 * through `@ccm-kit/cloud-provider`'s `wantsLoadBalancer`, plus the beyond-upstream `loadBalancerClass` option.
 */
import { wantsLoadBalancer as upstreamWantsLoadBalancer } from '@ccm-kit/cloud-provider';
import type { V1Service } from '@kubernetes/client-node';

/**
 * True when the Service should have a cloud load balancer from this controller: type `LoadBalancer` and
 * - upstream (`loadBalancerClass` undefined): no `spec.loadBalancerClass` at all — any class, even `""`, opts out;
 * - beyond upstream (`loadBalancerClass` given): `spec.loadBalancerClass` equals it; Services without a class
 *   are then left to another implementation.
 */
export function wantsLoadBalancer(service: Pick<V1Service, 'spec'>, loadBalancerClass?: string): boolean {
  if (loadBalancerClass === undefined) return upstreamWantsLoadBalancer(service);
  return service.spec?.type === 'LoadBalancer' && service.spec.loadBalancerClass === loadBalancerClass;
}
