/**
 * Which cloud routes belong to this cluster. Follows upstream `controllers/route/route_controller.go`
 * (`isResponsibleForRoute`).
 */
import type { Route } from '@ccm-kit/cloud-provider';
import { type CIDR, cidrContains, parseCIDR } from '@ccm-kit/cloud-provider';

/**
 * True when the route's first **or** last address lies in one of the cluster CIDRs (an overlap test on the
 * endpoints, not containment: `10.0.0.0/8` is not ours against `10.244.0.0/16`). A route whose
 * `destinationCIDR` does not parse is never ours; `onUnparsable` is called with the parse error then.
 */
export function isResponsibleForRoute(
  clusterCIDRs: readonly CIDR[],
  route: Pick<Route, 'destinationCIDR'>,
  onUnparsable?: (err: Error) => void,
): boolean {
  let cidr: CIDR;
  try {
    cidr = parseCIDR(route.destinationCIDR);
  } catch (err) {
    onUnparsable?.(err as Error);
    return false;
  }
  return clusterCIDRs.some((c) => cidrContains(c, cidr.network) || cidrContains(c, cidr.last));
}
