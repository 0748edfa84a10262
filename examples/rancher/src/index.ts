/** rancher-cloud-controller-manager's provider on ccm-kit: the provider, its parts and its registration. */
export { CattleApiError, CattleClient, type CattleEndpoint, type Filters } from './cattle/client.js';
export type * from './cattle/types.js';
export { RancherCloud, type RancherCloudOptions, register } from './provider/cloud.js';
export { describeEndpoint, readRancherConfig } from './provider/config.js';
export { HostDirectory, hostNameMatches, hostUUIDOf, PROVIDER_NAME, type RancherHost } from './provider/hosts.js';
export { hostAddresses, RancherInstances } from './provider/instances.js';
export { balancerStatus, RANCHER_LB_CAPABILITIES, RancherLoadBalancer } from './provider/load-balancer.js';
export { balancerName, externalServiceName, launchPorts, portsChanged, STACK_NAME } from './provider/names.js';
