/**
 * A small in-memory cloud that keeps the whole provider contract (InstancesV2, Instances, Zones,
 * LoadBalancer with RetryError while provisioning, Routes), and switchable bugs, each breaking one rule the
 * conformance suite checks. Cloud calls go through a simulated API that can be taken down (an outage).
 */
import {
  type CloudProvider,
  ImplementedElsewhereError,
  type InstanceMetadata,
  InstanceNotFoundError,
  type Instances,
  type InstancesV2,
  type ListLoadBalancersOptions,
  type LoadBalancer,
  type LoadBalancerCapabilities,
  type LoadBalancerListPage,
  NotImplementedError,
  RetryError,
  type Route,
  type Routes,
  type Zone,
  type Zones,
} from '@ccm-kit/cloud-provider';
import type { ProviderFixture } from '@ccm-kit/testing';
import type { V1LoadBalancerStatus, V1Node, V1NodeAddress, V1Service } from '@kubernetes/client-node';

/** One deliberate contract violation. */
export type Bug =
  | 'bad-provider-name'
  | 'cluster-id-string'
  | 'exists-false-on-error'
  | 'metadata-undefined-on-error'
  | 'notfound-on-error'
  | 'foreign-provider-id'
  | 'unstable-addresses'
  | 'name-only-lookup'
  | 'stopped-missing'
  | 'invents-missing-metadata'
  | 'ignores-abort'
  | 'hangs'
  | 'abandons-aborted-work'
  | 'instance-id-plain-error'
  | 'addresses-differ'
  | 'v1-exists-false-on-error'
  | 'constant-lb-name'
  | 'get-reports-unknown'
  | 'empty-ingress'
  | 'never-provisioned'
  | 'implemented-elsewhere'
  | 'new-ip-each-ensure'
  | 'racy-create'
  | 'update-fails'
  | 'delete-unknown-throws'
  | 'delete-keeps'
  | 'delete-all'
  | 'delete-implemented-elsewhere'
  | 'ensure-swallows-errors'
  | 'get-undefined-on-error'
  | 'delete-swallows-errors'
  | 'route-delete-throws'
  | 'routes-empty-on-error'
  | 'rejects-source-ranges'
  | 'undeclared-ip-mode'
  | 'malformed-capabilities'
  | 'list-wrong-name'
  | 'list-keeps-deleted'
  | 'delete-by-name-only';

interface Machine {
  id: string;
  name: string;
  addresses: V1NodeAddress[];
  type: string;
  zone: string;
  region: string;
  state: 'running' | 'stopped';
}

interface CloudLB {
  id: string;
  uid: string;
  namespace: string;
  name: string;
  ip: string;
  provisioning: number;
  /** Deleted, but still listed (bug `list-keeps-deleted`). */
  deleted?: boolean;
}

const PREFIX = 'memory://';

/** The in-memory provider. */
export class MemoryCloud implements CloudProvider, InstancesV2, Instances, Zones, LoadBalancer, Routes {
  readonly machines = new Map<string, Machine>();
  readonly lbs: CloudLB[] = [];
  readonly routeTable = new Map<string, Route>();
  /** While true, every API call fails with HTTP 503. */
  down = false;
  #seq = 0;
  #ips = 0;
  #calls = 0;

  /** What the memory cloud's load balancers support: all of it is honoured (the statuses are IPv4 `VIP`). */
  readonly capabilities: LoadBalancerCapabilities;

  constructor(readonly bugs: ReadonlySet<Bug> = new Set()) {
    this.capabilities = this.#has('malformed-capabilities')
      ? ({ protocols: ['HTTP'] } as unknown as LoadBalancerCapabilities)
      : {
          protocols: ['TCP', 'UDP', 'SCTP'],
          mixedProtocols: true,
          loadBalancerSourceRanges: true,
          externalTrafficPolicyLocal: true,
          ipFamilies: ['IPv4'],
          dualStack: false,
          loadBalancerIP: false,
          allocateLoadBalancerNodePortsFalse: true,
          sessionAffinityClientIP: true,
          ipModes: ['VIP'],
        };
  }

  #has(bug: Bug): boolean {
    return this.bugs.has(bug);
  }

  /** One simulated API round trip: a macrotask, the abort check, the outage, then `fn` in one step. */
  async #api<T>(signal: AbortSignal | undefined, fn: () => T): Promise<T> {
    this.#calls++;
    if (this.#has('hangs')) return new Promise<T>(() => {});
    if (this.#has('abandons-aborted-work') && signal?.aborted) {
      // Starts a request anyway, then gives up on it without handling its failure.
      void new Promise((_, reject) => setTimeout(() => reject(new Error('ECONNREFUSED (abandoned request)')), 5));
      throw signal.reason;
    }
    await new Promise((r) => setImmediate(r));
    if (!this.#has('ignores-abort')) signal?.throwIfAborted();
    if (this.down) throw new Error('HTTP 503 Service Unavailable');
    return fn();
  }

  /** API calls made so far. */
  get calls(): number {
    return this.#calls;
  }

  addMachine(m: Omit<Machine, 'id'> & { id?: string }): Machine {
    const machine = { ...m, id: m.id ?? `m-${++this.#seq}` };
    this.machines.set(machine.id, machine);
    return machine;
  }

  // ---- CloudProvider
  providerName(): string {
    return this.#has('bad-provider-name') ? 'memory cloud' : 'memory';
  }
  hasClusterID(): boolean {
    return (this.#has('cluster-id-string') ? 'yes' : true) as boolean;
  }
  instancesV2(): InstancesV2 {
    return this;
  }
  instances(): Instances {
    return this;
  }
  zones(): Zones {
    return this;
  }
  loadBalancer(): LoadBalancer {
    return this;
  }
  routes(): Routes {
    return this;
  }

  // ---- lookups
  #byName(name: string): Machine | undefined {
    return [...this.machines.values()].find((m) => m.name === name);
  }
  #byProviderID(pid: string): Machine | undefined {
    return pid.startsWith(PREFIX) ? this.machines.get(pid.slice(PREFIX.length)) : undefined;
  }
  #find(node: V1Node): Machine | undefined {
    const pid = node.spec?.providerID;
    if (pid && !this.#has('name-only-lookup')) return this.#byProviderID(pid);
    return this.#byName(node.metadata?.name ?? '');
  }

  // ---- InstancesV2
  async instanceExists(node: V1Node, signal?: AbortSignal): Promise<boolean> {
    try {
      const m = await this.#api(signal, () => this.#find(node));
      if (m?.state === 'stopped' && this.#has('stopped-missing')) return false;
      return m !== undefined;
    } catch (err) {
      if (this.#has('exists-false-on-error') && this.down) return false;
      throw err;
    }
  }
  async instanceShutdown(node: V1Node, signal?: AbortSignal): Promise<boolean> {
    return (await this.#api(signal, () => this.#find(node)))?.state === 'stopped';
  }
  async instanceMetadata(node: V1Node, signal?: AbortSignal): Promise<InstanceMetadata | undefined> {
    let m: Machine | undefined;
    try {
      m = await this.#api(signal, () => this.#find(node));
    } catch (err) {
      if (this.down && this.#has('metadata-undefined-on-error')) return undefined;
      if (this.down && this.#has('notfound-on-error')) throw new InstanceNotFoundError();
      throw err;
    }
    if (!m) {
      if (this.#has('invents-missing-metadata')) return { providerID: `${PREFIX}unknown`, nodeAddresses: [] };
      throw new InstanceNotFoundError();
    }
    const addresses = m.addresses.map((a) => ({ ...a }));
    if (this.#has('unstable-addresses') && this.#calls % 2 === 0) addresses.reverse();
    return {
      providerID: `${this.#has('foreign-provider-id') ? 'other://' : PREFIX}${m.id}`,
      instanceType: m.type,
      zone: m.zone,
      region: m.region,
      nodeAddresses: addresses,
    };
  }

  // ---- Instances (v1)
  async nodeAddresses(name: string, signal?: AbortSignal): Promise<V1NodeAddress[]> {
    const m = await this.#api(signal, () => this.#byName(name));
    if (!m) throw new InstanceNotFoundError();
    const out = m.addresses.map((a) => ({ ...a }));
    return this.#has('addresses-differ') ? out.slice(1) : out;
  }
  async nodeAddressesByProviderID(pid: string, signal?: AbortSignal): Promise<V1NodeAddress[]> {
    const m = await this.#api(signal, () => this.#byProviderID(pid));
    if (!m) throw new InstanceNotFoundError();
    return m.addresses.map((a) => ({ ...a }));
  }
  async instanceID(name: string, signal?: AbortSignal): Promise<string> {
    const m = await this.#api(signal, () => this.#byName(name));
    if (!m) throw this.#has('instance-id-plain-error') ? new Error('no such machine') : new InstanceNotFoundError();
    return m.id;
  }
  async instanceType(name: string, signal?: AbortSignal): Promise<string> {
    const m = await this.#api(signal, () => this.#byName(name));
    if (!m) throw new InstanceNotFoundError();
    return m.type;
  }
  async instanceTypeByProviderID(pid: string, signal?: AbortSignal): Promise<string> {
    const m = await this.#api(signal, () => this.#byProviderID(pid));
    if (!m) throw new InstanceNotFoundError();
    return m.type;
  }
  async addSSHKeyToAllInstances(): Promise<void> {
    throw new NotImplementedError();
  }
  async currentNodeName(hostname: string): Promise<string> {
    return hostname;
  }
  async instanceExistsByProviderID(pid: string, signal?: AbortSignal): Promise<boolean> {
    try {
      return (await this.#api(signal, () => this.#byProviderID(pid))) !== undefined;
    } catch (err) {
      if (this.down && this.#has('v1-exists-false-on-error')) return false;
      throw err;
    }
  }
  async instanceShutdownByProviderID(pid: string, signal?: AbortSignal): Promise<boolean> {
    return (await this.#api(signal, () => this.#byProviderID(pid)))?.state === 'stopped';
  }

  // ---- Zones
  async getZone(signal?: AbortSignal): Promise<Zone> {
    return this.#api(signal, () => ({ failureDomain: 'z1', region: 'r1' }));
  }
  async getZoneByProviderID(pid: string, signal?: AbortSignal): Promise<Zone> {
    const m = await this.#api(signal, () => this.#byProviderID(pid));
    if (!m) throw new InstanceNotFoundError();
    return { failureDomain: m.zone, region: m.region };
  }
  async getZoneByNodeName(name: string, signal?: AbortSignal): Promise<Zone> {
    const m = await this.#api(signal, () => this.#byName(name));
    if (!m) throw new InstanceNotFoundError();
    return { failureDomain: m.zone, region: m.region };
  }

  // ---- LoadBalancer
  #lbOf(service: V1Service): CloudLB | undefined {
    return this.lbs.find((l) => !l.deleted && l.uid === service.metadata?.uid);
  }
  #status(lb: CloudLB): V1LoadBalancerStatus {
    if (this.#has('empty-ingress')) return { ingress: [] };
    return { ingress: [{ ip: lb.ip, ipMode: this.#has('undeclared-ip-mode') ? 'Proxy' : 'VIP' }] };
  }
  #newLB(service: V1Service): CloudLB {
    const { uid = '', namespace = '', name = '' } = service.metadata ?? {};
    const lb = { id: `lb-${++this.#seq}`, uid, namespace, name, ip: `203.0.113.${++this.#ips}`, provisioning: 2 };
    this.lbs.push(lb);
    return lb;
  }

  getLoadBalancerName(_cluster: string, service: V1Service): string {
    return this.#has('constant-lb-name') ? 'lb' : `a${(service.metadata?.uid ?? '').replaceAll('-', '')}`.slice(0, 32);
  }
  async getLoadBalancer(_cluster: string, service: V1Service, signal?: AbortSignal) {
    try {
      const lb = await this.#api(signal, () => this.#lbOf(service));
      if (this.#has('get-reports-unknown')) return { ingress: [{ ip: '203.0.113.250' }] };
      return lb && this.#status(lb);
    } catch (err) {
      if (this.down && this.#has('get-undefined-on-error')) return undefined;
      throw err;
    }
  }
  async ensureLoadBalancer(
    _cluster: string,
    service: V1Service,
    _nodes: V1Node[],
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus> {
    if (this.#has('implemented-elsewhere')) throw new ImplementedElsewhereError();
    if (this.#has('rejects-source-ranges') && service.spec?.loadBalancerSourceRanges?.length) {
      throw new Error('HTTP 400 source ranges are not supported');
    }
    let lb: CloudLB;
    try {
      if (this.#has('racy-create')) {
        const found = await this.#api(signal, () => this.#lbOf(service));
        lb = found ?? (await this.#api(signal, () => this.#newLB(service)));
      } else if (this.#has('new-ip-each-ensure')) {
        lb = await this.#api(signal, () => {
          const old = this.#lbOf(service);
          if (old && old.provisioning === 0) old.ip = `203.0.113.${++this.#ips}`;
          return old ?? this.#newLB(service);
        });
      } else {
        lb = await this.#api(signal, () => this.#lbOf(service) ?? this.#newLB(service));
      }
    } catch (err) {
      if (this.down && this.#has('ensure-swallows-errors')) return { ingress: [{ ip: '203.0.113.254' }] };
      throw err;
    }
    if (this.#has('never-provisioned') || lb.provisioning > 0) {
      lb.provisioning--;
      throw new RetryError(`load balancer ${lb.id} is provisioning`, 5);
    }
    return this.#status(lb);
  }
  async updateLoadBalancer(
    _cluster: string,
    service: V1Service,
    _nodes: V1Node[],
    signal?: AbortSignal,
  ): Promise<void> {
    const lb = await this.#api(signal, () => this.#lbOf(service));
    if (!lb) throw new Error('no load balancer');
    if (this.#has('update-fails')) throw new Error('HTTP 500 target update failed');
  }
  async ensureLoadBalancerDeleted(_cluster: string, service: V1Service, signal?: AbortSignal): Promise<void> {
    if (this.#has('delete-implemented-elsewhere')) throw new ImplementedElsewhereError();
    try {
      await this.#api(signal, () => {
        const matches = (l: CloudLB) =>
          this.#has('delete-by-name-only')
            ? l.name === service.metadata?.name && service.spec?.ports !== undefined
            : l.uid === service.metadata?.uid;
        const mine = this.lbs.filter((l) => !l.deleted && (this.#has('delete-all') || matches(l)));
        if (mine.length === 0 && this.#has('delete-unknown-throws'))
          throw new Error('HTTP 404 load balancer not found');
        if (this.#has('delete-keeps')) return;
        for (const l of mine) {
          if (this.#has('list-keeps-deleted')) l.deleted = true;
          else this.lbs.splice(this.lbs.indexOf(l), 1);
        }
      });
    } catch (err) {
      if (this.down && this.#has('delete-swallows-errors')) return;
      throw err;
    }
  }

  /** Two entries per page; the token is the offset. */
  async listLoadBalancers(_cluster: string, options: ListLoadBalancersOptions = {}): Promise<LoadBalancerListPage> {
    return this.#api(options.signal, () => {
      const from = Number(options.pageToken ?? 0);
      const page = this.lbs.slice(from, from + 2).map((l) => ({
        name: l.id,
        service: { namespace: l.namespace, name: this.#has('list-wrong-name') ? `${l.name}-x` : l.name, uid: l.uid },
      }));
      return from + 2 < this.lbs.length
        ? { loadBalancers: page, nextPageToken: String(from + 2) }
        : { loadBalancers: page };
    });
  }

  // ---- Routes
  async listRoutes(_cluster: string, signal?: AbortSignal): Promise<Route[]> {
    try {
      return await this.#api(signal, () => [...this.routeTable.values()].map((r) => ({ ...r })));
    } catch (err) {
      if (this.down && this.#has('routes-empty-on-error')) return [];
      throw err;
    }
  }
  async createRoute(_cluster: string, nameHint: string, route: Route, signal?: AbortSignal): Promise<void> {
    await this.#api(signal, () => {
      this.routeTable.set(`${route.targetNode}|${route.destinationCIDR}`, { ...route, name: nameHint });
    });
  }
  async deleteRoute(_cluster: string, route: Route, signal?: AbortSignal): Promise<void> {
    await this.#api(signal, () => {
      const existed = this.routeTable.delete(`${route.targetNode}|${route.destinationCIDR}`);
      if (!existed && this.#has('route-delete-throws')) throw new Error(`route ${route.destinationCIDR} not found`);
    });
  }
}

/** A fixture over a fresh {@link MemoryCloud} with a running, a stopped and no missing machine. */
export function memoryFixture(bugs: Bug[] = []): ProviderFixture & { cloud: MemoryCloud } {
  const cloud = new MemoryCloud(new Set(bugs));
  cloud.addMachine({
    id: 'm-a',
    name: 'node-a',
    addresses: [
      { type: 'InternalIP', address: '10.0.0.1' },
      { type: 'Hostname', address: 'node-a' },
    ],
    type: 'small',
    zone: 'z1',
    region: 'r1',
    state: 'running',
  });
  cloud.addMachine({
    id: 'm-b',
    name: 'node-b',
    addresses: [{ type: 'InternalIP', address: '10.0.0.2' }],
    type: 'small',
    zone: 'z2',
    region: 'r1',
    state: 'running',
  });
  cloud.addMachine({
    id: 'm-s',
    name: 'node-s',
    addresses: [{ type: 'InternalIP', address: '10.0.0.3' }],
    type: 'small',
    zone: 'z1',
    region: 'r1',
    state: 'stopped',
  });
  return {
    cloud,
    existingNode: { metadata: { name: 'node-a' } },
    missingNode: { metadata: { name: 'ghost' }, spec: { providerID: `${PREFIX}m-gone` } },
    stoppedNode: { metadata: { name: 'node-s' }, spec: { providerID: `${PREFIX}m-s` } },
    breakCloud: () => {
      cloud.down = true;
    },
    healCloud: () => {
      cloud.down = false;
    },
    listCloudLoadBalancers: () => cloud.lbs.filter((l) => !l.deleted).map((l) => l.id),
  };
}

/** The nodes the reference load balancer balances over. */
export const memoryNodes: V1Node[] = [
  { metadata: { name: 'node-a' }, spec: { providerID: `${PREFIX}m-a` } },
  { metadata: { name: 'node-b' }, spec: { providerID: `${PREFIX}m-b` } },
];
