/**
 * What the local provider's load balancers support (`LoadBalancer.capabilities`, docs/service-capabilities.md),
 * from its configuration. It declares only what this provider does itself:
 * - addresses, in both data planes: the IP families of the configured pools (a family no pool has is
 *   declared unsupported), dual-stack when a pool has both, `loadBalancerIP`, `ipMode` VIP or Proxy;
 * - `proxy`: its TCP and UDP proxies serve the ports, enforce the source ranges (clients outside are
 *   disconnected, their datagrams dropped), check `healthCheckNodePort` with `externalTrafficPolicy: Local` and
 *   pin a client to a node with `sessionAffinity: ClientIP` (`source-hash`); they forward to node ports, so a
 *   port without one is not served;
 * - `none`: who serves the traffic (a speaker such as kube-vip, then kube-proxy, which enforces the source ranges
 *   of a `VIP` address itself) is not this provider's to declare, so the other members are left unchecked.
 */
import type { LoadBalancerCapabilities } from '@ccm-kit/cloud-provider';
import type { LocalConfig } from './config.js';
import type { IPFamily } from './ip.js';

/** The declaration of the local provider with this configuration. */
export function localCapabilities(config: Pick<LocalConfig, 'dataPlane' | 'pools'>): LoadBalancerCapabilities {
  const families = new Set<IPFamily>();
  let dualStack = false;
  for (const pool of config.pools) {
    const own = new Set(pool.spans.map((s) => s.family));
    for (const f of own) families.add(f);
    if (own.size > 1) dualStack = true;
  }
  const addresses: LoadBalancerCapabilities = {
    ipFamilies: (['IPv4', 'IPv6'] as const).filter((f) => families.has(f)),
    dualStack,
    loadBalancerIP: true,
    ipModes: ['VIP', 'Proxy'],
  };
  if (config.dataPlane !== 'proxy') return addresses;
  return {
    ...addresses,
    protocols: ['TCP', 'UDP'],
    mixedProtocols: true,
    loadBalancerSourceRanges: true,
    externalTrafficPolicyLocal: true,
    allocateLoadBalancerNodePortsFalse: false,
    sessionAffinityClientIP: true,
  };
}
