/**
 * The metrics of the node CIDR pools, with upstream's names, labels, help and buckets
 * (`k8s.io/kubernetes pkg/controller/nodeipam/ipam/cidrset/metrics.go`, subsystem `node_ipam_controller`; the
 * gauge's name keeps upstream's spelling `cirdset_max_cidrs`). Registered in `@ccm-kit/runtime`'s
 * `metricsRegistry` on first use — when node-ipam-controller builds its pools — so a manager without the
 * controller serves none of them, as upstream's sample CCM.
 */
import { metricsRegistry } from '@ccm-kit/runtime';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The five series of one registry, each labelled `clusterCIDR` (the pool's cluster CIDR, as Go prints it). */
export interface CidrSetMetrics {
  /** `node_ipam_controller_cidrset_cidrs_allocations_total`: CIDRs marked used (allocated or occupied). */
  readonly allocations: Counter<'clusterCIDR'>;
  /** `node_ipam_controller_cidrset_cidrs_releases_total`: CIDRs returned to the pool. */
  readonly releases: Counter<'clusterCIDR'>;
  /** `node_ipam_controller_cirdset_max_cidrs`: how many node CIDRs the pool holds. */
  readonly maxCIDRs: Gauge<'clusterCIDR'>;
  /** `node_ipam_controller_cidrset_usage_cidrs`: the used fraction of the pool (0…1). */
  readonly usage: Gauge<'clusterCIDR'>;
  /** `node_ipam_controller_cidrset_allocation_tries_per_request`: used candidates skipped per allocation. */
  readonly tries: Histogram<'clusterCIDR'>;
}

const SUBSYSTEM = 'node_ipam_controller';
const labelNames = ['clusterCIDR'] as const;

function reuse<T>(registry: Registry, name: string, type: abstract new (...a: never[]) => T): T | undefined {
  const m = registry.getSingleMetric(name);
  return m instanceof type ? m : undefined;
}

/** The cidrset series in `registry`, registered there on first call (series already there are reused). */
export function createCidrSetMetrics(registry: Registry): CidrSetMetrics {
  const name = (n: string) => `${SUBSYSTEM}_${n}`;
  const counter = (n: string, help: string) =>
    reuse(registry, name(n), Counter) ??
    new Counter({ name: name(n), help: `[ALPHA] ${help}`, labelNames, registers: [registry] });
  const gauge = (n: string, help: string) =>
    reuse(registry, name(n), Gauge) ??
    new Gauge({ name: name(n), help: `[ALPHA] ${help}`, labelNames, registers: [registry] });
  const triesName = name('cidrset_allocation_tries_per_request');
  return {
    allocations: counter('cidrset_cidrs_allocations_total', 'Counter measuring total number of CIDR allocations.'),
    releases: counter('cidrset_cidrs_releases_total', 'Counter measuring total number of CIDR releases.'),
    maxCIDRs: gauge('cirdset_max_cidrs', 'Maximum number of CIDRs that can be allocated.'),
    usage: gauge('cidrset_usage_cidrs', 'Gauge measuring percentage of allocated CIDRs.'),
    tries:
      reuse(registry, triesName, Histogram) ??
      new Histogram({
        name: triesName,
        // Upstream's help text, copied from another metric, as it is.
        help: '[ALPHA] Number of endpoints added on each Service sync',
        labelNames,
        buckets: [1, 5, 25, 125, 625],
        registers: [registry],
      }),
  };
}

let shared: CidrSetMetrics | undefined;

/** The cidrset series of the manager's `metricsRegistry` (registered on first call). */
export function cidrSetMetrics(): CidrSetMetrics {
  shared ??= createCidrSetMetrics(metricsRegistry);
  return shared;
}
