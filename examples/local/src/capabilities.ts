/**
 * What the local provider's load balancers support (`LoadBalancer.capabilities`, docs/service-capabilities.md),
 * per data plane. It declares only what this provider does itself:
 * - `proxy`: its TCP and UDP proxies serve the ports, enforce the source ranges (clients outside are
 *   disconnected, their datagrams dropped), check `healthCheckNodePort` with `externalTrafficPolicy: Local` and
 *   pin a client to a node with `sessionAffinity: ClientIP` (`source-hash`); they forward to node ports, so a
 *   port without one is not served.
 * - `none`: only addresses are allocated. Who serves the traffic (a speaker such as kube-vip, then kube-proxy,
 *   which enforces the source ranges of a `VIP` address itself) is not this provider's to declare, so only the
 *   address members are declared and the others are left unchecked.
 */
import type { LoadBalancerCapabilities } from '@ccm-kit/cloud-provider';
import type { DataPlaneMode } from './config.js';

const ADDRESSES: LoadBalancerCapabilities = {
  ipFamilies: ['IPv4', 'IPv6'],
  dualStack: true,
  loadBalancerIP: true,
  ipModes: ['VIP', 'Proxy'],
};

const PROXY: LoadBalancerCapabilities = {
  ...ADDRESSES,
  protocols: ['TCP', 'UDP'],
  mixedProtocols: true,
  loadBalancerSourceRanges: true,
  externalTrafficPolicyLocal: true,
  allocateLoadBalancerNodePortsFalse: false,
  sessionAffinityClientIP: true,
};

/** The declaration of the local provider with this data plane. */
export function localCapabilities(dataPlane: DataPlaneMode): LoadBalancerCapabilities {
  return dataPlane === 'proxy' ? PROXY : ADDRESSES;
}
