/**
 * The fake Cattle API's data and lifecycle: hosts with IP addresses, stacks, settings, balancer and external
 * services. Services move as Rancher's do, each step after `actionDelayMs`: created → `registering` (no actions)
 * → `inactive` (`activate`, `setservicelinks` for balancers) → on `activate`, `activating` (no actions) →
 * `active` (`deactivate`, `setservicelinks`); a balancer gets its public endpoints `endpointDelayMs` after it
 * became active, one per launch port at an address of its own from `publicAddresses`.
 */

/** A stored resource: Cattle's fields as JSON, plus `id`, `type`, `state` and `removed`. */
export type Stored = Record<string, unknown> & { id: string; type: string; state: string; removed: string | null };

/** The collections by URL name, with the resource types each lists. */
export const COLLECTIONS: Readonly<Record<string, readonly string[]>> = {
  hosts: ['host'],
  ipaddresses: ['ipAddress'],
  stacks: ['stack'],
  settings: ['setting'],
  loadbalancerservices: ['loadBalancerService'],
  externalservices: ['externalService'],
  services: ['loadBalancerService', 'externalService'],
};

/** The collection a resource type belongs to. */
export function collectionOf(type: string): string {
  return Object.entries(COLLECTIONS).find(([, types]) => types.length === 1 && types[0] === type)![0];
}

const SERVICE_TYPES = new Set(['loadBalancerService', 'externalService']);

/** Options of {@link FakeCattleState}; delays in milliseconds. */
export interface FakeCattleStateOptions {
  /** Delay of each service state step (default 50). */
  actionDelayMs?: number;
  /** Delay from a balancer's activation to its public endpoints (default 50). */
  endpointDelayMs?: number;
  /** Addresses handed to balancers, one each (default 203.0.113.10 … 203.0.113.250). */
  publicAddresses?: readonly string[];
}

/** The fake's resources. Every method is synchronous; the timers of the lifecycle stop with {@link close}. */
export class FakeCattleState {
  readonly #items = new Map<string, Stored>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #links = new Map<string, string[]>();
  readonly #actionDelayMs: number;
  readonly #endpointDelayMs: number;
  readonly #addresses: string[];
  #seq = 0;

  constructor(options: FakeCattleStateOptions = {}) {
    this.#actionDelayMs = options.actionDelayMs ?? 50;
    this.#endpointDelayMs = options.endpointDelayMs ?? 50;
    this.#addresses = [...(options.publicAddresses ?? Array.from({ length: 241 }, (_, i) => `203.0.113.${i + 10}`))];
    this.setSetting('lb.instance.image', 'rancher/lb-service-haproxy:v0.7.9');
  }

  /** Adds a host with its addresses (none: a host Rancher has no address for). */
  addHost(spec: { hostname: string; addresses?: readonly string[]; uuid?: string }): Stored {
    const host = this.#add('host', { hostname: spec.hostname, uuid: spec.uuid ?? crypto.randomUUID() }, 'active');
    for (const address of spec.addresses ?? []) this.#add('ipAddress', { address, hostId: host.id }, 'active');
    return host;
  }

  /** Removes the host (by hostname), as when a machine leaves Rancher. */
  removeHost(hostname: string): void {
    for (const h of this.list('host')) if (h.hostname === hostname) this.remove(h.id);
  }

  setSetting(name: string, value: string): void {
    const existing = this.list('setting').find((s) => s.name === name);
    if (existing) existing.value = value;
    else this.#add('setting', { name, value }, 'active');
  }

  /** The resources of these types that are not removed. */
  list(...types: string[]): Stored[] {
    return this.all(...types).filter((r) => r.removed === null);
  }

  /** The resources of these types, removed ones included (as the API lists them without `removed_null`). */
  all(...types: string[]): Stored[] {
    return [...this.#items.values()].filter((r) => types.includes(r.type));
  }

  get(id: string): Stored | undefined {
    return this.#items.get(id);
  }

  /** Creates a resource from an API request; services start `registering`. */
  create(type: string, body: Record<string, unknown>): Stored {
    if (!SERVICE_TYPES.has(type)) return this.#add(type, body, 'active');
    const svc = this.#add(type, body, 'registering');
    this.#later(this.#actionDelayMs, () => {
      if (svc.state === 'registering') svc.state = 'inactive';
    });
    return svc;
  }

  /** Sets fields (not `id`, `type`, `state`, `removed`). */
  update(resource: Stored, changes: Record<string, unknown>): void {
    for (const [k, v] of Object.entries(changes)) if (!['id', 'type', 'state', 'removed'].includes(k)) resource[k] = v;
  }

  /** Marks the resource removed; it then disappears from listings and links. */
  remove(id: string): void {
    const r = this.#items.get(id);
    if (!r || r.removed !== null) return;
    r.state = 'removed';
    r.removed = new Date().toISOString();
    if (r.type === 'host') for (const ip of this.list('ipAddress')) if (ip.hostId === id) this.remove(ip.id);
  }

  /** The actions the resource offers in its state. */
  actionsOf(r: Stored): string[] {
    if (!SERVICE_TYPES.has(r.type)) return [];
    const links = r.type === 'loadBalancerService' ? ['setservicelinks'] : [];
    if (r.state === 'inactive') return ['activate', ...links];
    if (r.state === 'active') return ['deactivate', ...links];
    return [];
  }

  /** Runs an action. @throws Error when the resource does not offer it now. */
  act(r: Stored, action: string, input: Record<string, unknown>): void {
    if (!this.actionsOf(r).includes(action))
      throw new Error(`${r.type} ${r.id} offers no ${action} in state ${r.state}`);
    if (action === 'setservicelinks') {
      const links = (input.serviceLinks as { serviceId: string }[] | undefined) ?? [];
      this.#links.set(
        r.id,
        links.map((l) => l.serviceId),
      );
    } else if (action === 'activate') {
      r.state = 'activating';
      this.#later(this.#actionDelayMs, () => this.#activated(r));
    } else if (action === 'deactivate') {
      r.state = 'inactive';
      r.publicEndpoints = [];
    }
  }

  /** The resources a link of `r` leads to. */
  follow(r: Stored, link: string): Stored[] {
    if (link === 'ipAddresses') return this.list('ipAddress').filter((ip) => ip.hostId === r.id);
    if (link === 'consumedservices') {
      return (this.#links.get(r.id) ?? []).map((id) => this.#items.get(id)!).filter((s) => s && s.removed === null);
    }
    if (link === 'consumedbyservices') {
      return this.list(...SERVICE_TYPES).filter((s) => (this.#links.get(s.id) ?? []).includes(r.id));
    }
    return [];
  }

  /** The link names of a resource. */
  linksOf(r: Stored): string[] {
    if (r.type === 'host') return ['ipAddresses'];
    return SERVICE_TYPES.has(r.type) ? ['consumedservices', 'consumedbyservices'] : [];
  }

  /** Stops the lifecycle timers. */
  close(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  #activated(r: Stored): void {
    if (r.state !== 'activating') return;
    r.state = 'active';
    if (r.type !== 'loadBalancerService') return;
    this.#later(this.#endpointDelayMs, () => {
      if (r.state !== 'active') return;
      r.publicAddress ??= this.#addresses.shift();
      const ports = ((r.launchConfig as { ports?: string[] } | undefined)?.ports ?? []).map((p) =>
        Number(p.split(':')[0]),
      );
      r.publicEndpoints = ports.map((port) => ({ ipAddress: r.publicAddress, port, serviceId: r.id }));
    });
  }

  #add(type: string, fields: Record<string, unknown>, state: string): Stored {
    const prefix = { host: '1h', ipAddress: '1i', stack: '1st', setting: '1as' }[type] ?? '1s';
    const r: Stored = { ...fields, id: `${prefix}${++this.#seq}`, type, state, removed: null };
    this.#items.set(r.id, r);
    return r;
  }

  #later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, ms);
    t.unref();
    this.#timers.add(t);
  }
}
