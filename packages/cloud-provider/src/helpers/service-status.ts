/**
 * Load-balancer status comparison.
 * Follows upstream `k8s.io/cloud-provider/service/helpers/helper.go` `LoadBalancerStatusEqual`.
 */
import type { V1LoadBalancerIngress, V1LoadBalancerStatus, V1PortStatus } from '@kubernetes/client-node';

function portEqual(a: V1PortStatus, b: V1PortStatus): boolean {
  return a.port === b.port && (a.protocol ?? '') === (b.protocol ?? '') && a.error === b.error;
}

function ingressEqual(a: V1LoadBalancerIngress, b: V1LoadBalancerIngress): boolean {
  const pa = a.ports ?? [];
  const pb = b.ports ?? [];
  return (
    (a.ip ?? '') === (b.ip ?? '') &&
    (a.hostname ?? '') === (b.hostname ?? '') &&
    (a.ipMode ?? undefined) === (b.ipMode ?? undefined) &&
    pa.length === pb.length &&
    pa.every((p, i) => portEqual(p, pb[i] as V1PortStatus))
  );
}

/**
 * Semantic equality of two load-balancer statuses, on `ingress` only: IP, hostname, `ipMode` (unset differs
 * from set) and the ports list, in order. `undefined` and empty lists are equal; a missing status equals
 * an empty one.
 */
export function loadBalancerStatusEqual(
  l: V1LoadBalancerStatus | undefined | null,
  r: V1LoadBalancerStatus | undefined | null,
): boolean {
  const a = l?.ingress ?? [];
  const b = r?.ingress ?? [];
  return a.length === b.length && a.every((x, i) => ingressEqual(x, b[i] as V1LoadBalancerIngress));
}
