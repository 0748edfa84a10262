/**
 * Load-balancer source ranges.
 * Follows upstream `k8s.io/cloud-provider/service/helpers/helper.go` `GetLoadBalancerSourceRanges` and
 * `IsAllowAll` (upstream `k8s.io/cloud-provider service/helpers/helper.go`).
 */
import type { V1Service } from '@kubernetes/client-node';
import { formatCIDR, tryParseCIDR } from '../net.js';
import { ANNOTATION_LOAD_BALANCER_SOURCE_RANGES } from '../well-known.js';

/** The source range used when neither the field nor the annotation gives one. */
export const DEFAULT_LOAD_BALANCER_SOURCE_RANGES = '0.0.0.0/0';

function parseRanges(specs: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const raw of specs) {
    const s = raw.trim();
    const cidr = tryParseCIDR(s);
    if (cidr === undefined) throw new Error(`invalid CIDR address: ${s}`);
    out.add(formatCIDR(cidr));
  }
  return out;
}

/**
 * The service's allowed source ranges as a set of normalized CIDR strings (duplicates collapse; for example
 * `192.168.0.1/16` becomes `192.168.0.0/16`). `spec.loadBalancerSourceRanges` wins when non-empty; otherwise
 * the `service.beta.kubernetes.io/load-balancer-source-ranges` annotation (trimmed, split on `,`), and
 * `0.0.0.0/0` when that is empty or missing. Each item is trimmed and must be a CIDR (a bare IP is invalid).
 * @throws Error `service.Spec.LoadBalancerSourceRanges: [<a b …>] is not valid. Expecting a list of IP ranges. For example, 10.0.0.0/24. Error msg: invalid CIDR address: <item>`
 * @throws Error `service.beta.kubernetes.io/load-balancer-source-ranges: <value> is not valid. Expecting a comma-separated list of source IP ranges. For example, 10.0.0.0/24,192.168.2.0/24`
 */
export function getLoadBalancerSourceRanges(service: Pick<V1Service, 'metadata' | 'spec'>): Set<string> {
  const fromSpec = service.spec?.loadBalancerSourceRanges ?? [];
  if (fromSpec.length > 0) {
    const specs = fromSpec.map((s) => s.trim());
    try {
      return parseRanges(specs);
    } catch (err) {
      throw new Error(
        `service.Spec.LoadBalancerSourceRanges: [${specs.join(' ')}] is not valid. Expecting a list of IP ranges. For example, 10.0.0.0/24. Error msg: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }
  let value = (service.metadata?.annotations?.[ANNOTATION_LOAD_BALANCER_SOURCE_RANGES] ?? '').trim();
  if (value === '') value = DEFAULT_LOAD_BALANCER_SOURCE_RANGES;
  try {
    return parseRanges(value.split(','));
  } catch {
    throw new Error(
      `${ANNOTATION_LOAD_BALANCER_SOURCE_RANGES}: ${value} is not valid. Expecting a comma-separated list of source IP ranges. For example, 10.0.0.0/24,192.168.2.0/24`,
    );
  }
}

/**
 * True when any range, once normalized, is `0.0.0.0/0` (so `192.168.0.0/0` counts; `::/0` does not).
 * Accepts normalized strings (as {@link getLoadBalancerSourceRanges} returns) or raw CIDRs.
 */
export function isAllowAll(ranges: Iterable<string>): boolean {
  for (const r of ranges) {
    const cidr = tryParseCIDR(r.trim());
    if (cidr && formatCIDR(cidr) === DEFAULT_LOAD_BALANCER_SOURCE_RANGES) return true;
  }
  return false;
}
