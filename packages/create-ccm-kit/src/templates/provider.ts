/** src/provider.ts of a new project: the provider class with the chosen facets as typed stubs. */
import { className, type Facet, type ProjectOptions } from '../options.js';

const stub = (method: string) => `    throw new NotImplementedError('${method} not implemented');`;

const INSTANCES_V2 = `
  // --- InstancesV2: the node controllers' questions about a Node's machine -------------------------
  // Match a Node by node.spec.providerID first, by its name only while it has none.

  /**
   * True while the machine exists, also when it is stopped; false only when the cloud confirms it is
   * gone (the cloud-node-lifecycle controller then deletes the Node). Throw on any failure.
   */
  async instanceExists(node: V1Node, signal?: AbortSignal): Promise<boolean> {
    // TODO: ask your cloud's API whether the machine behind this Node exists.
    void [node, signal];
${stub('instanceExists')}
  }

  /** True when the machine is stopped (the Node gets the shutdown taint). Throw on any failure. */
  async instanceShutdown(node: V1Node, signal?: AbortSignal): Promise<boolean> {
    // TODO: ask your cloud's API whether the machine is stopped.
    void [node, signal];
${stub('instanceShutdown')}
  }

  /**
   * The machine's providerID (\`<providerName>://<id>\`), instance type, zone, region and addresses.
   * Throw (e.g. InstanceNotFoundError) when it cannot be found: the Node stays tainted and is retried.
   */
  async instanceMetadata(node: V1Node, signal?: AbortSignal): Promise<InstanceMetadata | undefined> {
    // TODO: look the machine up and describe it.
    void [node, signal];
${stub('instanceMetadata')}
  }
`;

const LOAD_BALANCER = `
  // --- LoadBalancer: one cloud load balancer per Service of type LoadBalancer ------------------------
  // Optional: declare which Service fields your load balancers support (a readonly \`capabilities\` of type
  // LoadBalancerCapabilities from @ccm-kit/cloud-provider); the service controller then refuses a Service
  // asking for source ranges you do not enforce, and warns about other unsupported fields.
  // See https://github.com/ccm-kit/ccm-kit/blob/main/docs/service-capabilities.md

  /** The load balancer's status, or undefined when it does not exist. */
  async getLoadBalancer(clusterName: string, service: V1Service, signal?: AbortSignal): Promise<V1LoadBalancerStatus | undefined> {
    // TODO: find the load balancer named this.getLoadBalancerName(clusterName, service).
    void [clusterName, service, signal];
${stub('getLoadBalancer')}
  }

  /** A stable name unique per Service (upstream's default: "a" + the Service UID without dashes). */
  getLoadBalancerName(_clusterName: string, service: V1Service): string {
    return defaultLoadBalancerName(service);
  }

  /**
   * Creates or updates the load balancer for the Service, forwarding its ports to the nodes' nodePorts,
   * and returns its ingress. Throw RetryError while it is still being provisioned.
   */
  async ensureLoadBalancer(clusterName: string, service: V1Service, nodes: V1Node[], signal?: AbortSignal): Promise<V1LoadBalancerStatus> {
    // TODO: create or update the load balancer; return { ingress: [{ ip }] }.
    void [clusterName, service, nodes, signal];
${stub('ensureLoadBalancer')}
  }

  /** Points the load balancer at these nodes. */
  async updateLoadBalancer(clusterName: string, service: V1Service, nodes: V1Node[], signal?: AbortSignal): Promise<void> {
    // TODO: update the load balancer's backends.
    void [clusterName, service, nodes, signal];
${stub('updateLoadBalancer')}
  }

  /** Deletes the load balancer; succeeds when it is already gone. Throw when the cloud cannot say. */
  async ensureLoadBalancerDeleted(clusterName: string, service: V1Service, signal?: AbortSignal): Promise<void> {
    // TODO: delete the load balancer if it exists.
    void [clusterName, service, signal];
${stub('ensureLoadBalancerDeleted')}
  }
`;

const ROUTES = `
  // --- Routes: a route per Node's podCIDR in the cloud's network -----------------------------------

  /** The routes of this cluster. Throw when the cloud cannot say (never return [] on an error). */
  async listRoutes(clusterName: string, signal?: AbortSignal): Promise<Route[]> {
    // TODO: list the routes your cloud holds for this cluster.
    void [clusterName, signal];
${stub('listRoutes')}
  }

  /** Creates a route sending route.destinationCIDR to route.targetNode. */
  async createRoute(clusterName: string, nameHint: string, route: Route, signal?: AbortSignal): Promise<void> {
    // TODO: create the route.
    void [clusterName, nameHint, route, signal];
${stub('createRoute')}
  }

  /** Deletes the route; succeeds when it is already gone. */
  async deleteRoute(clusterName: string, route: Route, signal?: AbortSignal): Promise<void> {
    // TODO: delete the route.
    void [clusterName, route, signal];
${stub('deleteRoute')}
  }
`;

const INSTANCES_V1 = `
  // --- Instances: the older API (prefer InstancesV2 for a new provider) ------------------------------

  async nodeAddresses(nodeName: string, signal?: AbortSignal): Promise<V1NodeAddress[]> {
    // TODO: the addresses of the machine named nodeName.
    void [nodeName, signal];
${stub('nodeAddresses')}
  }
  async nodeAddressesByProviderID(providerID: string, signal?: AbortSignal): Promise<V1NodeAddress[]> {
    void [providerID, signal];
${stub('nodeAddressesByProviderID')}
  }
  async instanceID(nodeName: string, signal?: AbortSignal): Promise<string> {
    // TODO: the machine's id (throw InstanceNotFoundError when there is none).
    void [nodeName, signal];
${stub('instanceID')}
  }
  async instanceType(nodeName: string, signal?: AbortSignal): Promise<string> {
    void [nodeName, signal];
${stub('instanceType')}
  }
  async instanceTypeByProviderID(providerID: string, signal?: AbortSignal): Promise<string> {
    void [providerID, signal];
${stub('instanceTypeByProviderID')}
  }
  async addSSHKeyToAllInstances(): Promise<void> {
${stub('addSSHKeyToAllInstances')}
  }
  async currentNodeName(hostname: string): Promise<string> {
    return hostname;
  }
  async instanceExistsByProviderID(providerID: string, signal?: AbortSignal): Promise<boolean> {
    // TODO: false only when the cloud confirms the machine is gone.
    void [providerID, signal];
${stub('instanceExistsByProviderID')}
  }
  async instanceShutdownByProviderID(providerID: string, signal?: AbortSignal): Promise<boolean> {
    void [providerID, signal];
${stub('instanceShutdownByProviderID')}
  }
`;

const ZONES_WITH_INSTANCES = `
  // --- Zones: the zone and region labels of a Node --------------------------------------------------
  // The cloud-node controller asks Zones (by providerID, else by node name) after Instances.
`;

const ZONES_WITH_INSTANCES_V2 = `
  // --- Zones ------------------------------------------------------------------------------------------
  // Never called by the controllers: with InstancesV2 a Node's zone and region come from instanceMetadata.
  // Keep Zones only for your own code that asks for it; otherwise remove "zones" (and this section).
`;

const ZONES = `
  async getZone(signal?: AbortSignal): Promise<Zone> {
    void [signal];
${stub('getZone')}
  }
  async getZoneByProviderID(providerID: string, signal?: AbortSignal): Promise<Zone> {
    // TODO: { failureDomain: zone, region }.
    void [providerID, signal];
${stub('getZoneByProviderID')}
  }
  async getZoneByNodeName(nodeName: string, signal?: AbortSignal): Promise<Zone> {
    void [nodeName, signal];
${stub('getZoneByNodeName')}
  }
`;

const FACET = {
  instancesV2: {
    iface: ['InstancesV2'],
    accessors: ['instancesV2(): InstancesV2'],
    body: INSTANCES_V2,
    types: ['InstanceMetadata', 'InstancesV2'],
    k8s: ['V1Node'],
  },
  loadBalancer: {
    iface: ['LoadBalancer'],
    accessors: ['loadBalancer(): LoadBalancer'],
    body: LOAD_BALANCER,
    types: ['LoadBalancer'],
    k8s: ['V1LoadBalancerStatus', 'V1Node', 'V1Service'],
  },
  routes: { iface: ['Routes'], accessors: ['routes(): Routes'], body: ROUTES, types: ['Route', 'Routes'], k8s: [] },
  instances: {
    iface: ['Instances'],
    accessors: ['instances(): Instances'],
    body: INSTANCES_V1,
    types: ['Instances'],
    k8s: ['V1NodeAddress'],
  },
  zones: { iface: ['Zones'], accessors: ['zones(): Zones'], body: ZONES, types: ['Zone', 'Zones'], k8s: [] },
} satisfies Record<Facet, unknown>;

/** What Zones is for in this facet set: with InstancesV2 the controllers never call it. */
const zonesIntro = (o: ProjectOptions) =>
  o.facets.includes('instancesV2') ? ZONES_WITH_INSTANCES_V2 : ZONES_WITH_INSTANCES;

export function providerTs(o: ProjectOptions): string {
  const cls = className(o.provider);
  const parts = o.facets.map((f) => FACET[f]);
  const types = [...new Set(['CloudProvider', ...parts.flatMap((p) => p.types)])].map((t) => `type ${t}`);
  const values = [
    'NotImplementedError',
    'registerCloudProvider',
    ...(o.facets.includes('loadBalancer') ? ['defaultLoadBalancerName'] : []),
  ];
  const k8s = [...new Set(parts.flatMap((p) => p.k8s))].sort();
  const imports = [...types, ...values].sort((a, b) => a.replace('type ', '').localeCompare(b.replace('type ', '')));
  return `/**
 * The ${o.provider} cloud provider for Kubernetes, built with ccm-kit.
 * Facets: ${o.facets.join(', ')}. Every method is a stub that throws NotImplementedError: the conformance
 * test (test/conformance.test.ts) reports each as pending until you implement it.
 * The contract: https://github.com/ccm-kit/ccm-kit/tree/main/docs/interfaces/
 */
import {
${imports.map((i) => `  ${i},`).join('\n')}
} from '@ccm-kit/cloud-provider';
${k8s.length ? `import type { ${k8s.join(', ')} } from '@kubernetes/client-node';\n` : ''}import { type CloudConfig, parseCloudConfig } from './config.js';

/** The name registered with ccm-kit (\`--cloud-provider=${o.provider}\`) and the providerID scheme. */
export const PROVIDER_NAME = '${o.provider}';

export class ${cls} implements ${['CloudProvider', ...parts.flatMap((p) => p.iface)].join(', ')} {
  constructor(readonly config: CloudConfig) {}

  providerName(): string {
    return PROVIDER_NAME;
  }

  hasClusterID(): boolean {
    return true;
  }
${parts
  .flatMap((p) => p.accessors)
  .map((a) => `\n  ${a} {\n    return this;\n  }`)
  .join('\n')}
${o.facets.map((f) => (f === 'zones' ? zonesIntro(o) : '') + FACET[f].body).join('')}}

/** Registers the provider; main.ts calls this before starting the cloud-controller-manager. */
export function register(): void {
  registerCloudProvider(PROVIDER_NAME, async (config) => new ${cls}(parseCloudConfig(config)));
}
`;
}
