/**
 * Whether a Service update should be synced to its load balancer.
 * Follows upstream `controllers/service/controller.go` (`needsUpdate`, `portsEqualForLB`, `portEqualForLB`).
 * Strict deep-equality (nil ≠ empty) is used exactly where upstream uses `reflect.DeepEqual`.
 */
import type { V1Service, V1ServicePort } from '@kubernetes/client-node';
import { deepEqualNilStrict as goDeepEqual } from '../shared/deep-equal.js';
import { wantsLoadBalancer } from './service-ownership.js';

/** Why {@link needsUpdateReason} said yes, for the V(2) log line; `undefined` means no update is needed. */
export type NeedsUpdateReason =
  | 'wantsLoadBalancer'
  | 'loadBalancerSourceRanges'
  | 'ports'
  | 'sessionAffinity'
  | 'sessionAffinityConfig'
  | 'loadBalancerIP'
  | 'externalIPs'
  | 'annotations'
  | 'uid'
  | 'externalTrafficPolicy'
  | 'healthCheckNodePort'
  | 'ipFamilies';

/**
 * The first reason (in upstream's order) for which `newService` needs a load-balancer sync compared with
 * `oldService`, or `undefined`. Labels, `ipFamilyPolicy`, `internalTrafficPolicy`, `allocateLoadBalancerNodePorts`,
 * status and finalizers are not compared.
 * @param loadBalancerClass - the beyond-upstream class option (see {@link wantsLoadBalancer}).
 */
export function needsUpdateReason(
  oldService: V1Service,
  newService: V1Service,
  loadBalancerClass?: string,
): NeedsUpdateReason | undefined {
  const oldWants = wantsLoadBalancer(oldService, loadBalancerClass);
  const newWants = wantsLoadBalancer(newService, loadBalancerClass);
  if (!oldWants && !newWants) return undefined;
  if (oldWants !== newWants) return 'wantsLoadBalancer';
  const o = oldService.spec ?? {};
  const n = newService.spec ?? {};
  if (newWants && !goDeepEqual(o.loadBalancerSourceRanges, n.loadBalancerSourceRanges)) {
    return 'loadBalancerSourceRanges';
  }
  if (!portsEqualForLB(o.ports ?? [], n.ports ?? [])) return 'ports';
  if ((o.sessionAffinity ?? '') !== (n.sessionAffinity ?? '')) return 'sessionAffinity';
  if (!goDeepEqual(o.sessionAffinityConfig, n.sessionAffinityConfig)) return 'sessionAffinityConfig';
  if ((o.loadBalancerIP ?? '') !== (n.loadBalancerIP ?? '')) return 'loadBalancerIP';
  const oIPs = o.externalIPs ?? [];
  const nIPs = n.externalIPs ?? [];
  if (oIPs.length !== nIPs.length) return 'externalIPs';
  for (let i = 0; i < oIPs.length; i++) if (oIPs[i] !== nIPs[i]) return 'externalIPs';
  if (!goDeepEqual(oldService.metadata?.annotations, newService.metadata?.annotations)) return 'annotations';
  if ((oldService.metadata?.uid ?? '') !== (newService.metadata?.uid ?? '')) return 'uid';
  if ((o.externalTrafficPolicy ?? '') !== (n.externalTrafficPolicy ?? '')) return 'externalTrafficPolicy';
  if ((o.healthCheckNodePort ?? 0) !== (n.healthCheckNodePort ?? 0)) return 'healthCheckNodePort';
  if ((o.ipFamilies ?? []).length !== (n.ipFamilies ?? []).length) return 'ipFamilies';
  return undefined;
}

/** True when `newService` needs a load-balancer sync compared with `oldService` (upstream `needsUpdate`). */
export function needsUpdate(oldService: V1Service, newService: V1Service, loadBalancerClass?: string): boolean {
  return needsUpdateReason(oldService, newService, loadBalancerClass) !== undefined;
}

/** Same length and, index by index, the same name, protocol, port, nodePort, targetPort and appProtocol. */
export function portsEqualForLB(x: readonly V1ServicePort[], y: readonly V1ServicePort[]): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (!portEqualForLB(x[i]!, y[i]!)) return false;
  return true;
}

function portEqualForLB(x: V1ServicePort, y: V1ServicePort): boolean {
  if ((x.name ?? '') !== (y.name ?? '')) return false;
  if ((x.protocol ?? '') !== (y.protocol ?? '')) return false;
  if (x.port !== y.port) return false;
  if ((x.nodePort ?? 0) !== (y.nodePort ?? 0)) return false;
  // IntOrString: a number and a string never match (Go compares the type too); unset is int 0.
  if ((x.targetPort ?? 0) !== (y.targetPort ?? 0)) return false;
  return goDeepEqual(x.appProtocol, y.appProtocol);
}
