/**
 * The LoadBalancer facet over the Cattle API (rancher/rancher.go "LoadBalancer Functions"). Per Service, one
 * balancer service `lb-<default load-balancer name>` in the stack `kubernetes-loadbalancers`, launched with the
 * ports `<port>:<port>/tcp`; per Node, one external service at the host's first address (shared by every
 * balancer), linked to the balancer, with a port rule `<port>` → `<node port>` for each served port. The ingress
 * is the balancer's public endpoints.
 *
 * Where the original blocked for up to a minute, polling every 2 s for an action to be offered (`activate`,
 * `setservicelinks`) or for public endpoints, this throws a `RetryError` of 2 s: the service controller comes back
 * and the sync starts over, finding what the last attempt made. Its refusals of `loadBalancerIP` and of session
 * affinity are declared in {@link RANCHER_LB_CAPABILITIES} instead: the controller warns the user on the Service.
 */
import { type LoadBalancer, type LoadBalancerCapabilities, RetryError } from '@ccm-kit/cloud-provider';
import type { Logger } from '@ccm-kit/runtime';
import type { V1LoadBalancerStatus, V1Node, V1Service, V1ServicePort } from '@kubernetes/client-node';
import type { CattleClient } from '../cattle/client.js';
import type {
  CattleResource,
  ExternalService,
  LoadBalancerService,
  PortRule,
  Setting,
  Stack,
} from '../cattle/types.js';
import type { HostDirectory } from './hosts.js';
import {
  balancerName,
  externalServiceName,
  launchPorts,
  needsActivation,
  portsChanged,
  servedPorts,
  STACK_EXTERNAL_ID,
  STACK_NAME,
} from './names.js';
import { OneAtATime } from './one-at-a-time.js';

/**
 * What Rancher's balancers do with a Service's fields: TCP only (its port rules are `/tcp`), IPv4 addresses it
 * picks itself (the original refused `loadBalancerIP`), no source ranges, no session affinity (the original refused
 * it: haproxy's stickiness needs HTTP), no health-check node port, no ports without a node port.
 */
export const RANCHER_LB_CAPABILITIES: LoadBalancerCapabilities = {
  protocols: ['TCP'],
  mixedProtocols: false,
  loadBalancerSourceRanges: false,
  externalTrafficPolicyLocal: false,
  ipFamilies: ['IPv4'],
  dualStack: false,
  loadBalancerIP: false,
  allocateLoadBalancerNodePortsFalse: false,
  sessionAffinityClientIP: false,
  ipModes: ['VIP'],
};

/** The setting naming the balancer image (`docker:<value>` becomes the balancer's `imageUuid`). */
const IMAGE_SETTING = 'lb.instance.image';

/** Options of {@link RancherLoadBalancer}. */
export interface RancherLoadBalancerOptions {
  /** The `RetryError` delay while Rancher works (an action not offered yet, no public endpoint yet), ms; default 2000. */
  retryAfterMs?: number;
}

/** The balancer's ingress: one entry per distinct public-endpoint address. */
export function balancerStatus(lb: LoadBalancerService): V1LoadBalancerStatus {
  const ips = [...new Set((lb.publicEndpoints ?? []).map((e) => e.ipAddress))];
  return { ingress: ips.map((ip) => ({ ip })) };
}

/** LoadBalancer over a {@link CattleClient}; calls for one Service run one at a time. */
export class RancherLoadBalancer implements LoadBalancer {
  readonly capabilities = RANCHER_LB_CAPABILITIES;
  readonly #serial = new OneAtATime();
  readonly #retryAfterMs: number;

  constructor(
    private readonly api: CattleClient,
    private readonly hosts: HostDirectory,
    private readonly log: Logger,
    options: RancherLoadBalancerOptions = {},
  ) {
    this.#retryAfterMs = options.retryAfterMs ?? 2_000;
  }

  getLoadBalancerName(_clusterName: string, service: V1Service): string {
    return balancerName(service);
  }

  /** The balancer's status, or `undefined` when there is none. @throws Error when two balancers have the name. */
  async getLoadBalancer(_clusterName: string, service: V1Service, signal?: AbortSignal) {
    const lb = await this.#find(balancerName(service), signal);
    return lb ? balancerStatus(lb) : undefined;
  }

  /**
   * Creates the balancer (recreates it when its ports changed), points it at `nodes` and activates it.
   * @throws RetryError while Rancher does not offer the next action yet or the balancer has no public endpoint.
   * @throws InstanceNotFoundError (wrapped) for a Node without a Rancher host; CattleApiError when the API fails.
   */
  ensureLoadBalancer(_clusterName: string, service: V1Service, nodes: V1Node[], signal?: AbortSignal) {
    const name = balancerName(service);
    return this.#serial.run(name, async () => {
      signal?.throwIfAborted();
      const ports = this.#ports(service, name);
      const wanted = launchPorts(ports);
      let lb = await this.#find(name, signal);
      if (lb && portsChanged(wanted, lb.launchConfig.ports)) {
        // Rancher cannot change a balancer's launch ports: make it anew.
        this.log.info('Deleting the balancer because its ports changed', { balancer: name, ports: wanted });
        await this.#delete(lb, signal);
        lb = undefined;
      }
      if (!lb) lb = await this.#create(name, wanted, signal);
      await this.#setHosts(lb, nodes, ports, signal);
      lb = await this.#reload(lb, signal);
      if (needsActivation(lb.state)) {
        this.#offered(lb, 'activate');
        await this.api.action(lb, 'activate', {}, signal);
        lb = await this.#reload(lb, signal);
      }
      if (!lb.actions?.deactivate) this.#retry(`balancer ${name} is not active yet (state ${lb.state})`);
      if (!lb.publicEndpoints?.length) this.#retry(`balancer ${name} has no public endpoint yet`);
      return balancerStatus(lb);
    });
  }

  /**
   * Points the balancer at `nodes`: its links and port rules are replaced. The external services of Nodes that left
   * stay in the stack (a Node that comes back is served at once, without waiting for Rancher to activate a new
   * one); deleting a balancer removes every one no balancer uses.
   * @throws Error `Couldn't find LB with name <name>` when there is no balancer.
   * @throws RetryError while a new Node's external service cannot be activated yet (the service controller then
   *   ensures the Service again); the other errors of ensure.
   */
  updateLoadBalancer(_clusterName: string, service: V1Service, nodes: V1Node[], signal?: AbortSignal) {
    const name = balancerName(service);
    return this.#serial.run(name, async () => {
      signal?.throwIfAborted();
      const lb = await this.#find(name, signal);
      if (!lb) throw new Error(`Couldn't find LB with name ${name}`);
      await this.#setHosts(lb, nodes, this.#ports(service, name), signal);
    });
  }

  /** Removes the balancer and the external services no other balancer uses; resolves when there is none. */
  ensureLoadBalancerDeleted(_clusterName: string, service: V1Service, signal?: AbortSignal) {
    const name = balancerName(service);
    return this.#serial.run(name, async () => {
      signal?.throwIfAborted();
      const lb = await this.#find(name, signal);
      if (lb) await this.#delete(lb, signal);
    });
  }

  #ports(service: V1Service, name: string): V1ServicePort[] {
    const { served, skipped } = servedPorts(service);
    if (skipped.length > 0) {
      this.log.warn('Ignoring ports that are not TCP or have no node port', {
        balancer: name,
        ports: skipped.map((p) => `${p.port}/${p.protocol ?? 'TCP'}`),
      });
    }
    return served;
  }

  async #find(name: string, signal?: AbortSignal): Promise<LoadBalancerService | undefined> {
    const found = await this.api.list<LoadBalancerService>('loadbalancerservices', { name, removed_null: '1' }, signal);
    if (found.length > 1) throw new Error(`Multiple LBs found for name: ${name}`);
    return found[0];
  }

  async #reload(lb: LoadBalancerService, signal?: AbortSignal): Promise<LoadBalancerService> {
    const now = await this.api.byId<LoadBalancerService>('loadbalancerservices', lb.id, signal);
    if (!now) throw new Error(`balancer ${lb.name} (${lb.id}) disappeared`);
    return now;
  }

  async #create(name: string, ports: string[], signal?: AbortSignal): Promise<LoadBalancerService> {
    const [image] = await this.api.list<Setting>('settings', { name: IMAGE_SETTING }, signal);
    if (!image?.value) throw new Error(`Failed to fetch ${IMAGE_SETTING} setting`);
    const stack = await this.#serial.run('stack', () => this.#stack(signal));
    this.log.info('Creating balancer', { balancer: name, ports });
    return this.api.create<LoadBalancerService>(
      'loadbalancerservices',
      { name, stackId: stack.id, launchConfig: { ports, imageUuid: `docker:${image.value}` }, lbConfig: {} },
      signal,
    );
  }

  async #stack(signal?: AbortSignal): Promise<Stack> {
    const filters = { name: STACK_NAME, externalId: STACK_EXTERNAL_ID, removed_null: '1' };
    const [found] = await this.api.list<Stack>('stacks', filters, signal);
    return found ?? this.api.create<Stack>('stacks', { name: STACK_NAME, externalId: STACK_EXTERNAL_ID }, signal);
  }

  /**
   * Links the balancer to one active external service per Node and sets its port rules. Every missing service is
   * made and every inactive one activated in one pass before a RetryError, so that waiting for Rancher costs one
   * retry, not one per Node.
   */
  async #setHosts(lb: LoadBalancerService, nodes: V1Node[], ports: V1ServicePort[], signal?: AbortSignal) {
    const services: ExternalService[] = [];
    const waiting: string[] = [];
    for (const node of nodes) {
      const ext = await this.#externalService(lb, node.metadata?.name ?? '', signal);
      if (needsActivation(ext.state)) {
        if (ext.actions?.activate) await this.api.action(ext, 'activate', {}, signal);
        else waiting.push(ext.name ?? ext.id);
      }
      services.push(ext);
    }
    if (waiting.length > 0) this.#retry(`external services ${waiting.join(', ')} cannot be activated yet`);
    const portRules: PortRule[] = services.flatMap((ext) =>
      ports.map((p) => ({ sourcePort: p.port, targetPort: p.nodePort!, serviceId: ext.id, protocol: 'tcp' as const })),
    );
    // Links only track dependencies (consumedservices); the port rules route the traffic.
    if (!lb.actions?.setservicelinks) lb = await this.#reload(lb, signal);
    this.#offered(lb, 'setservicelinks');
    const serviceLinks = [...new Set(services.map((s) => s.id))].map((serviceId) => ({ serviceId }));
    await this.api.action(lb, 'setservicelinks', { serviceLinks }, signal);
    await this.api.update(lb, { lbConfig: { portRules } }, signal);
  }

  /** The Node's external service in the balancer's stack, made from its host's first address if missing. */
  async #externalService(lb: LoadBalancerService, nodeName: string, signal?: AbortSignal): Promise<ExternalService> {
    const name = externalServiceName(nodeName);
    const filters = { name, stackId: lb.stackId, removed_null: '1' };
    const [found] = await this.api.list<ExternalService>('externalservices', filters, signal);
    if (found) return found;
    const host = await this.hosts.byName(nodeName, signal).catch((err: unknown) => {
      throw new Error(`Couldn't create external service ${name} for LB ${lb.name}: ${String(err)}`, { cause: err });
    });
    return this.api.create<ExternalService>(
      'externalservices',
      { name, stackId: lb.stackId, externalIpAddresses: [host.addresses[0]] },
      signal,
    );
  }

  /** Removes the balancer, then every external service of its stack that no balancer consumes. */
  async #delete(lb: LoadBalancerService, signal?: AbortSignal): Promise<void> {
    this.log.info('Deleting balancer', { balancer: lb.name });
    await this.api.remove(lb, signal);
    const filters = { stackId: lb.stackId, removed_null: '1' };
    for (const svc of await this.api.list<ExternalService>('externalservices', filters, signal)) {
      if ((await this.api.link(svc, 'consumedbyservices', signal)).length > 0) continue;
      this.log.info('Removing external service no balancer uses', { service: svc.name });
      await this.api.remove(svc, signal);
    }
  }

  /** @throws RetryError unless the resource offers `action` now. */
  #offered(resource: CattleResource, action: string): void {
    if (!resource.actions?.[action]) {
      this.#retry(
        `${resource.type} ${resource.name ?? resource.id} does not offer ${action} yet (state ${resource.state})`,
      );
    }
  }

  #retry(message: string): never {
    throw new RetryError(message, this.#retryAfterMs);
  }
}
