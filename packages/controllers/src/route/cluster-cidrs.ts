/**
 * `--cluster-cidr` processing for the route controller. Follows upstream `app/core.go`
 * (`startRouteController`, `processCIDRs`) and `k8s.io/utils/net` (`ParseCIDRs`, `IsDualStackCIDRs`).
 */
import { type CIDR, parseCIDR } from '@ccm-kit/cloud-provider';

/** A bad `--cluster-cidr` (the route controller's init throws it, which is fatal for the manager, as upstream). */
export class ClusterCIDRError extends Error {
  constructor(
    readonly clusterCIDR: string,
    detail: string,
  ) {
    super(`invalid --cluster-cidr ${JSON.stringify(clusterCIDR)}: ${detail}`);
    this.name = 'ClusterCIDRError';
  }
}

/**
 * Parses the comma-separated cluster CIDRs as upstream: the whole string is trimmed, then split on `,`; the
 * items are **not** trimmed (`"a, b"` fails). One CIDR, or two of different families (dual-stack), are accepted.
 * @returns the parsed CIDRs, in order.
 * @throws ClusterCIDRError when the value is empty, an item does not parse (`invalid CIDR[i] …`), more than one
 *   CIDR is given without one of each family (upstream's `len of ClusterCIDRs==N and they are not configured as
 *   dual stack (at least one from each IPFamily`, sic), or more than 2 are given
 *   (`length of clusterCIDRs is:N more than max allowed of 2`).
 */
export function parseClusterCIDRs(clusterCIDR: string): CIDR[] {
  const items = clusterCIDR.trim().split(',');
  const cidrs: CIDR[] = [];
  for (const [i, item] of items.entries()) {
    try {
      cidrs.push(parseCIDR(item));
    } catch (err) {
      const hint = clusterCIDR.trim() === '' ? ' (--cluster-cidr is required by the node-route-controller)' : '';
      throw new ClusterCIDRError(
        clusterCIDR,
        `invalid CIDR[${i}] ${JSON.stringify(item)}: ${(err as Error).message}${hint}`,
      );
    }
  }
  const dualStack = cidrs.some((c) => c.family === 4) && cidrs.some((c) => c.family === 6);
  if (cidrs.length > 1 && !dualStack) {
    throw new ClusterCIDRError(
      clusterCIDR,
      `len of ClusterCIDRs==${cidrs.length} and they are not configured as dual stack (at least one from each IPFamily`,
    );
  }
  if (cidrs.length > 2) {
    throw new ClusterCIDRError(clusterCIDR, `length of clusterCIDRs is:${cidrs.length} more than max allowed of 2`);
  }
  return cidrs;
}
