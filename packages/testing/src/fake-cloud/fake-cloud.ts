/**
 * `FakeCloud`: an in-memory cloud for tests, with parity to upstream `k8s.io/cloud-provider/fake/fake.go`
 * (upstream `k8s.io/cloud-provider fake/fake.go`: same knobs, same recorded call names, same shared sticky `err`), plus a per-instance
 * table, fault injection (latency, errors, throttling), call counters and a bounded call log.
 */
import {
  type CloudProvider,
  type Clusters,
  defaultLoadBalancerName,
  type InstanceMetadata,
  InstanceNotFoundError,
  type InstanceStatePage,
  type Instances,
  type InstancesV2,
  type ListedLoadBalancer,
  type ListLoadBalancersOptions,
  type LoadBalancer,
  type LoadBalancerCapabilities,
  type LoadBalancerListPage,
  NotImplementedError,
  type PVLabeler,
  type Route,
  type Routes,
  type Zone,
  type Zones,
} from '@ccm-kit/cloud-provider';
import type {
  V1LoadBalancerIngress,
  V1LoadBalancerStatus,
  V1Node,
  V1NodeAddress,
  V1PersistentVolume,
  V1Service,
} from '@kubernetes/client-node';
import { SerialLock, sleep } from './abort.js';
import { BoundedList } from './bounded-list.js';
import { CallLog, type CallLogEntry, DEFAULT_CALL_LOG_LIMIT } from './call-log.js';
import { FaultInjector } from './faults.js';
import {
  copyAddresses,
  type FakeInstance,
  type FakeInstanceSpec,
  InstanceTable,
  instanceIdOf,
  instanceStatePage,
  metadataOf,
  zoneOf,
} from './instances.js';
import {
  type BalancerCallCallback,
  type FakeBalancer,
  type FakeCloudKnobs,
  type InstanceMetadataOverride,
  KNOB_NAMES,
  type UpdateBalancerCall,
} from './knobs.js';
import type { FakeCloudMethod } from './methods.js';
import type { FakeRoute } from './routes.js';
import * as routeTable from './routes.js';

/** Options of {@link FakeCloud}: any upstream knob, plus the fake's own settings. */
export interface FakeCloudOptions extends Partial<FakeCloudKnobs> {
  /**
   * Capacity of the call log and of `calls`, `ensureCalls` and `updateCalls` (each keeps its newest
   * entries and drops the oldest). A positive integer; default 10,000.
   */
  callLogLimit?: number;
  /** Monotonic clock in milliseconds, used by throttles and call-log times. Default `performance.now`. */
  now?: () => number;
  /** Uniform random numbers in `[0, 1)`, used by random latencies and error probabilities. Default `Math.random`. */
  random?: () => number;
  /** The LoadBalancer facet's capability declaration (see {@link FakeCloud.capabilities}). Default none. */
  capabilities?: LoadBalancerCapabilities;
  /** See {@link FakeCloud.instanceStatePageSize}; default `undefined` (no batch read, as upstream). */
  instanceStatePageSize?: number;
  /** See {@link FakeCloud.loadBalancerGroup}; default `undefined` (no groups, as upstream). */
  loadBalancerGroup?: (clusterName: string, service: V1Service) => string | undefined;
}

const knobNames: ReadonlySet<string> = new Set<string>([
  ...KNOB_NAMES,
  'callLogLimit',
  'now',
  'random',
  'capabilities',
  'instanceStatePageSize',
  'loadBalancerGroup',
]);

function own<T>(record: Record<string, T> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

function serviceKey(service: V1Service): string {
  return `${service.metadata?.namespace ?? ''}/${service.metadata?.name ?? ''}`;
}

/**
 * A fake cloud implementing every facet: {@link CloudProvider}, {@link LoadBalancer}, {@link Instances},
 * {@link InstancesV2}, {@link Zones}, {@link Clusters}, {@link Routes} and {@link PVLabeler}.
 *
 * **Upstream knobs** ({@link FakeCloudKnobs}) are public fields, settable in the constructor or at any time.
 * Values returned are copies (changing them does not change the fake).
 *
 * **Records.** `calls` holds upstream's call names in order (`create`, `get-zone`, `update`, `delete`,
 * `node-addresses`, `node-addresses-by-provider-id`, `instance-id`, `instance-type`,
 * `instance-type-by-provider-id`, `instance-exists-by-provider-id`, `instance-shutdown-by-provider-id`,
 * `instance-exists`, `instance-shutdown`, `instance-metadata-by-provider-id`, `get-zone-by-provider-id`,
 * `get-zone-by-node-name`, `list-routes`, `create-route`, `delete-route`, `list`); `getLoadBalancer`,
 * `getLoadBalancerName`, `addSSHKeyToAllInstances`, `currentNodeName`, the cluster methods and
 * `getLabelsForVolume` record nothing, as upstream. `ensureCalls`/`updateCalls` hold
 * {@link UpdateBalancerCall}s and `balancers` the stored load balancers.
 *
 * **Beyond upstream:**
 * - `ensureLoadBalancerDeleted` removes the balancer from `balancers`, and `updateLoadBalancer` updates
 *   its `hosts`, when they succeed (upstream leaves `Balancers` untouched).
 * - An instance table ({@link setInstance}/{@link deleteInstance}): when a node name or providerID
 *   matches a registered machine, the instance and zone methods answer from it, and the upstream value
 *   and error knobs of that method are not consulted (use {@link faults} for errors). A machine with
 *   `exists: false` answers "does not exist" (`false` from the exists methods, {@link InstanceNotFoundError}
 *   from the others). Unregistered names fall back to the upstream knobs.
 * - {@link faults}: per-method latency, injected errors and token-bucket throttling; {@link callLog}
 *   and {@link callCount}: every invocation, including failed ones.
 * - The optional batch read `InstancesV2.listInstanceStates`, only while {@link instanceStatePageSize} is set:
 *   the registered machines that exist and have a providerID, `instanceStatePageSize` per page, page tokens
 *   `'2'`, `'3'`, …; each page is one call (recorded `list-instance-states`, subject `page <n>` for
 *   {@link faults}, so `faults.injectError('listInstanceStates', { subject: 'page 2' })` fails the second page).
 *
 * **Order within a call:** abort check → throttle ({@link ThrottledError}) → latency → injected error →
 * `requestDelayMs` → name recorded in `calls` → the fake's logic. Throttled and injected failures are
 * therefore counted and logged but not recorded in `calls` (the request never reached the "cloud"),
 * which keeps `calls` exactly upstream's. An internal zone lookup in `ensureLoadBalancer` records
 * `get-zone` and waits `requestDelayMs` again, as upstream, without its own faults.
 *
 * **Cancellation:** every async method rejects with `signal.reason` when its AbortSignal aborts, at
 * once when already aborted, and during latency sleeps, `requestDelayMs` and queued callbacks.
 *
 * **Concurrency:** calls may overlap freely. JavaScript runs one synchronous step at a time, and each
 * method reads the knobs and changes the fake's state in a single synchronous step after its last
 * wait, so overlapping calls never see or leave half-updated state; the final state of a resource is
 * that of the call that completed last. Knob changes made while a call waits apply to that call.
 * `ensureCallCb` (and likewise `updateCallCb`) calls run one at a time in call order, like upstream's
 * lock: a callback that waits blocks later ensure calls (not update calls) until it settles.
 *
 * **Bounded memory:** `calls`, `ensureCalls`, `updateCalls` and the call log keep at most
 * `callLogLimit` entries each (oldest dropped); counters are per method; `balancers`, `routeMap` and
 * the instance table grow only with distinct resources.
 */
export class FakeCloud
  implements CloudProvider, LoadBalancer, Instances, InstancesV2, Zones, Clusters, Routes, PVLabeler, FakeCloudKnobs
{
  /** Upstream `DisableInstances`: `instances()` returns `undefined`. */
  disableInstances = false;
  /** Upstream `DisableRoutes`: `routes()` returns `undefined`. */
  disableRoutes = false;
  /** Upstream `DisableLoadBalancers`: `loadBalancer()` returns `undefined`. */
  disableLoadBalancers = false;
  /** Upstream `DisableZones`: `zones()` returns `undefined`. */
  disableZones = false;
  /** Upstream `DisableClusters`: `clusters()` returns `undefined`. */
  disableClusters = false;
  /** Upstream `EnableInstancesV2`: `instancesV2()` returns the fake (off by default, as upstream). */
  enableInstancesV2 = false;
  /** Upstream `Exists`: whether `getLoadBalancer` finds a balancer. */
  exists = false;
  /**
   * Upstream `Err`: thrown by `getLoadBalancer`, `ensureLoadBalancerDeleted`, `listLoadBalancers`, `listClusters`,
   * `master`, `listRoutes` and `list`; `undefined` for none. A failed route create or delete sets it, as upstream.
   */
  err: Error | undefined = undefined;
  /**
   * Upstream `ExistsByProviderID`: what `instanceExistsByProviderID`/`instanceExists` answer for an unregistered
   * machine.
   */
  existsByProviderID = false;
  /** Upstream `ErrByProviderID`: thrown by those lookups for an unregistered machine. */
  errByProviderID: Error | undefined = undefined;
  /** Upstream `NodeShutdown`: what `instanceShutdown(ByProviderID)` answers for an unregistered machine. */
  nodeShutdown = false;
  /** Upstream `ErrShutdownByProviderID`: thrown by those lookups for an unregistered machine. */
  errShutdownByProviderID: Error | undefined = undefined;
  /** Upstream `MetadataErr`: thrown by `instanceMetadata`. */
  metadataErr: Error | undefined = undefined;
  /**
   * Upstream `Addresses`: the addresses of an unregistered machine (`nodeAddresses`, `instanceMetadata`); set with
   * {@link FakeCloud.setNodeAddresses}.
   */
  addresses: V1NodeAddress[] = [];
  /** Upstream `ExtID`: what `instanceID` answers by node name, for an unregistered machine (else `''`). */
  extID: Record<string, string> = {};
  /** Upstream `ExtIDErr`: an error `instanceID` throws, by node name. */
  extIDErr: Record<string, Error> = {};
  /**
   * Upstream `InstanceTypes`: the instance type by node name (`instanceType`) or providerID
   * (`instanceTypeByProviderID`, `instanceMetadata`), for an unregistered machine.
   */
  instanceTypes: Record<string, string> = {};
  /** Upstream `ProviderID`: the providerID `instanceMetadata` reports, by node name. */
  providerID: Record<string, string> = {};
  /** Upstream `Zone`: what `getZone*` and `instanceMetadata` report for an unregistered machine. */
  zone: Zone = { failureDomain: '', region: '' };
  /** Upstream `AdditionalLabels`: the extra labels `instanceMetadata` reports. */
  additionalLabels: Record<string, string> | undefined = undefined;
  /** Upstream `OverrideInstanceMetadata`: when set, `instanceMetadata` returns what it returns. */
  overrideInstanceMetadata: InstanceMetadataOverride | undefined = undefined;
  /** Upstream `Provider`: the `providerName()` (empty: `fake`). */
  provider = '';
  /** Upstream `ExternalIP`: the ingress IP the balancer calls report (`undefined`: empty). */
  externalIP: string | undefined = undefined;
  /** Upstream `BalancerIPMode`: the ingress `ipMode` reported (`VIP`, `Proxy`); `undefined` leaves it out. */
  balancerIPMode: string | undefined = undefined;
  /**
   * Upstream `EnsureCallCb`: called with each `ensureLoadBalancer` call under the ensure lock; later ensure calls wait
   * for its promise.
   */
  ensureCallCb: BalancerCallCallback | undefined = undefined;
  /** Upstream `UpdateCallCb`: called with each `updateLoadBalancer` call. */
  updateCallCb: BalancerCallCallback | undefined = undefined;
  /**
   * Upstream `RouteMap`: the stored routes by `<cluster>-<target node>-<destination CIDR>` (also the route's `name`).
   */
  routeMap: Map<string, FakeRoute> = new Map();
  /** Upstream `RequestDelay`, in milliseconds: each recorded call waits this long first (abortable). */
  requestDelayMs = 0;
  /** Upstream `ClusterList`: what `listClusters` returns. */
  clusterList: string[] = [];
  /** Upstream `MasterName`: what `master` returns. */
  masterName = '';
  /** Upstream `VolumeLabelMap`: the labels `getLabelsForVolume` returns, by volume name. */
  volumeLabelMap: Record<string, Record<string, string>> = {};
  /** Upstream `Machines`: the machine names `list(filter)` matches. */
  machines: string[] = [];
  /**
   * The optional batch read (see the class notes); `undefined` unless {@link instanceStatePageSize} is set. An own
   * property rather than a method, so that a provider without batch reads is modelled by its absence.
   */
  listInstanceStates:
    ((pageToken: string | undefined, signal?: AbortSignal) => Promise<InstanceStatePage>) | undefined = undefined;
  #instanceStatePageSize: number | undefined = undefined;

  /**
   * The LoadBalancer facet's capability declaration (beyond upstream). The fake accepts every Service and
   * enforces nothing, so it declares nothing by default (upstream behaviour); a test sets the declaration it
   * needs, for example `{ loadBalancerSourceRanges: false }` to see the service controller refuse a Service.
   * The controller reads it once, when it is constructed.
   */
  capabilities: LoadBalancerCapabilities | undefined = undefined;
  /**
   * The optional `LoadBalancer.loadBalancerGroup` (beyond upstream); `undefined` by default, so the fake models a
   * provider without groups. A test sets a function, for example `(_c, svc) => svc.metadata?.namespace`. While it
   * is set, the fake counts {@link groupOverlaps}.
   */
  loadBalancerGroup: ((clusterName: string, service: V1Service) => string | undefined) | undefined = undefined;
  /**
   * Load-balancer calls (`getLoadBalancer`, `ensureLoadBalancer`, `updateLoadBalancer`,
   * `ensureLoadBalancerDeleted`) that began while another of them on the same group was in flight, counted while
   * {@link loadBalancerGroup} is set (the group is read at the call's start; a Service in no group is never
   * counted). A controller that honours groups keeps it at 0.
   */
  groupOverlaps = 0;
  /** Load balancers stored by `ensureLoadBalancer`, keyed by name (upstream `Balancers`). */
  balancers = new Map<string, FakeBalancer>();
  /** Beyond upstream: entries per page of `listLoadBalancers` (a positive integer; default 100). */
  balancerListPageSize = 100;
  /** Latency, error and throttle policies (beyond upstream). */
  readonly faults: FaultInjector;
  /** Every invocation of a cloud method, newest `callLogLimit` kept, with per-method counters. */
  readonly callLog: CallLog;

  readonly #now: () => number;
  readonly #calls: BoundedList<string>;
  readonly #ensureCalls: BoundedList<UpdateBalancerCall>;
  readonly #updateCalls: BoundedList<UpdateBalancerCall>;
  readonly #ensureLock = new SerialLock();
  readonly #updateLock = new SerialLock();
  readonly #instances = new InstanceTable();
  /** Load-balancer calls in flight per group (see {@link groupOverlaps}). */
  readonly #groupCalls = new Map<string, number>();

  /**
   * @param options - initial knob values and the fake's own settings.
   * @throws TypeError naming an unknown option; RangeError naming `callLogLimit` when invalid.
   */
  constructor(options: FakeCloudOptions = {}) {
    const { callLogLimit = DEFAULT_CALL_LOG_LIMIT, now, random, ...knobs } = options;
    for (const key of Object.keys(options)) {
      if (!knobNames.has(key)) throw new TypeError(`FakeCloud: unknown option ${JSON.stringify(key)}`);
    }
    this.#now = now ?? (() => performance.now());
    this.callLog = new CallLog(callLogLimit);
    this.#calls = new BoundedList(callLogLimit, 'callLogLimit');
    this.#ensureCalls = new BoundedList(callLogLimit, 'callLogLimit');
    this.#updateCalls = new BoundedList(callLogLimit, 'callLogLimit');
    this.faults = new FaultInjector({ now: this.#now, random: random ?? Math.random });
    for (const [key, value] of Object.entries(knobs)) {
      if (value !== undefined) (this as Record<string, unknown>)[key] = value;
    }
  }

  // ---------------------------------------------------------------- records

  /** The recorded call names, oldest first (a copy; at most `callLogLimit`). */
  get calls(): string[] {
    return this.#calls.toArray();
  }

  /** Empties {@link calls} (upstream `ClearCalls`); the call log, counters and balancer calls are kept. */
  clearCalls(): void {
    this.#calls.clear();
  }

  /** The `ensureLoadBalancer` calls, oldest first (a copy; at most `callLogLimit`). */
  get ensureCalls(): UpdateBalancerCall[] {
    return this.#ensureCalls.toArray();
  }

  /** The `updateLoadBalancer` calls, oldest first (a copy; at most `callLogLimit`). */
  get updateCalls(): UpdateBalancerCall[] {
    return this.#updateCalls.toArray();
  }

  /** Empties {@link ensureCalls} and {@link updateCalls}. */
  clearBalancerCalls(): void {
    this.#ensureCalls.clear();
    this.#updateCalls.clear();
  }

  /** Invocations of `method` (including throttled, failed and aborted ones) since creation or `callLog.clear()`. */
  callCount(method: FakeCloudMethod): number {
    return this.callLog.count(method);
  }

  /** Invocation counts of every method invoked at least once. */
  callCounts(): Partial<Record<FakeCloudMethod, number>> {
    return this.callLog.counts();
  }

  /** Sets {@link addresses} to a copy of `addresses` (upstream `SetNodeAddresses`). */
  setNodeAddresses(addresses: readonly V1NodeAddress[]): void {
    this.addresses = copyAddresses(addresses);
  }

  // ---------------------------------------------------------- instance table

  /**
   * Registers or updates a machine under a node name or providerID (beyond upstream). Fields given
   * replace the stored ones; omitted fields keep their value (for a new machine: no addresses, `''`
   * type/zone/region, `exists: true`, `shutdown: false`, providerID = the key when it contains `://`).
   * @returns the stored machine.
   * @throws TypeError when `nameOrProviderID` is empty.
   */
  setInstance(nameOrProviderID: string, spec: FakeInstanceSpec = {}): FakeInstance {
    return this.#instances.set(nameOrProviderID, spec);
  }

  /**
   * Forgets the machine registered under `nameOrProviderID`; its nodes are then answered from the
   * upstream knobs (whose defaults say "does not exist"). To keep it registered as gone, use
   * `setInstance(key, { exists: false })`. Returns true when there was one.
   */
  deleteInstance(nameOrProviderID: string): boolean {
    return this.#instances.delete(nameOrProviderID);
  }

  /** The machine registered under exactly this key, if any. */
  getInstance(nameOrProviderID: string): FakeInstance | undefined {
    return this.#instances.get(nameOrProviderID);
  }

  /** Every registered machine, in registration order. */
  listInstances(): FakeInstance[] {
    return this.#instances.list();
  }

  // ------------------------------------------------------------ CloudProvider

  /** Does nothing, as upstream. */
  initialize(): void {}

  /** This fake, unless {@link disableLoadBalancers}. */
  loadBalancer(): LoadBalancer | undefined {
    return this.disableLoadBalancers ? undefined : this;
  }

  /** This fake, unless {@link disableInstances}. */
  instances(): Instances | undefined {
    return this.disableInstances ? undefined : this;
  }

  /** This fake only when {@link enableInstancesV2} (off by default, as upstream). */
  instancesV2(): InstancesV2 | undefined {
    return this.enableInstancesV2 ? this : undefined;
  }

  /** This fake, unless {@link disableZones}. */
  zones(): Zones | undefined {
    return this.disableZones ? undefined : this;
  }

  /** This fake, unless {@link disableClusters}. */
  clusters(): Clusters | undefined {
    return this.disableClusters ? undefined : this;
  }

  /** This fake, unless {@link disableRoutes}. */
  routes(): Routes | undefined {
    return this.disableRoutes ? undefined : this;
  }

  /** {@link provider}, or `'fake'` when it is empty. */
  providerName(): string {
    return this.provider || 'fake';
  }

  /** Always true, as upstream. */
  hasClusterID(): boolean {
    return true;
  }

  // ------------------------------------------------------------- plumbing

  /** Runs one cloud call: log, abort check, throttle, latency, injected error, then `body`. */
  async #invoke<T>(
    method: FakeCloudMethod,
    subject: string,
    signal: AbortSignal | undefined,
    body: (entry: CallLogEntry) => T | Promise<T>,
  ): Promise<T> {
    const entry = this.callLog.begin(method, subject, this.#now());
    try {
      signal?.throwIfAborted();
      this.faults.admit(method);
      await sleep(this.faults.latencyMs(method), signal);
      const injected = this.faults.failure(method, subject);
      if (injected !== undefined) throw injected;
      const result = await body(entry);
      this.callLog.end(entry, this.#now(), false);
      return result;
    } catch (err) {
      this.callLog.end(entry, this.#now(), true, err);
      throw err;
    }
  }

  /** Runs a load-balancer call, counting it in flight on the Service's group (see {@link groupOverlaps}). */
  async #inGroup<T>(clusterName: string, service: V1Service, call: () => Promise<T>): Promise<T> {
    let group: string | undefined;
    try {
      group = this.loadBalancerGroup?.(clusterName, service) || undefined;
    } catch {
      group = undefined;
    }
    if (group === undefined) return call();
    const inFlight = this.#groupCalls.get(group) ?? 0;
    if (inFlight > 0) this.groupOverlaps++;
    this.#groupCalls.set(group, inFlight + 1);
    try {
      return await call();
    } finally {
      const left = this.#groupCalls.get(group)! - 1;
      if (left === 0) this.#groupCalls.delete(group);
      else this.#groupCalls.set(group, left);
    }
  }

  /** Waits `requestDelayMs` (abortable), then records `name` (upstream `addCall`). */
  async #record(entry: CallLogEntry, name: string, signal: AbortSignal | undefined): Promise<void> {
    await sleep(this.requestDelayMs, signal);
    this.#calls.push(name);
    entry.calls.push(name);
  }

  #throwErr(): void {
    if (this.err !== undefined) throw this.err;
  }

  #routes(): Map<string, FakeRoute> {
    this.routeMap ??= new Map();
    return this.routeMap;
  }

  #ingress(): V1LoadBalancerIngress {
    return { ip: this.externalIP ?? '' };
  }

  /** `get-zone` (recorded) then the shared error, then a copy of the zone. */
  async #getZone(entry: CallLogEntry, signal: AbortSignal | undefined): Promise<Zone> {
    await this.#record(entry, 'get-zone', signal);
    this.#throwErr();
    return { ...this.zone };
  }

  /** The registered machine for a key, or `undefined`; throws InstanceNotFoundError when it is gone. */
  #existing(instance: FakeInstance | undefined): FakeInstance | undefined {
    if (instance !== undefined && !instance.exists) throw new InstanceNotFoundError();
    return instance;
  }

  // ------------------------------------------------------------- LoadBalancer

  /**
   * `{ ingress: [{ ip: externalIP }] }` when {@link exists}, else `undefined`; throws {@link err}.
   * Records no call name, as upstream.
   */
  getLoadBalancer(
    _clusterName: string,
    service: V1Service,
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus | undefined> {
    return this.#inGroup(_clusterName, service, () =>
      this.#invoke('getLoadBalancer', serviceKey(service), signal, () => {
        this.#throwErr();
        return this.exists ? { ingress: [this.#ingress()] } : undefined;
      }),
    );
  }

  /** `defaultLoadBalancerName(service)`; not a cloud call (no record, no faults). */
  getLoadBalancerName(_clusterName: string, service: V1Service): string {
    return defaultLoadBalancerName(service);
  }

  /**
   * Records `create`, adds to {@link ensureCalls} and awaits {@link ensureCallCb}, records `get-zone`
   * and throws {@link err} if set; otherwise stores the balancer and returns
   * `{ ingress: [{ ip, ipMode?, ports: [{ port, protocol }] }] }` (a port without protocol reports `TCP`,
   * the API default).
   */
  ensureLoadBalancer(
    clusterName: string,
    service: V1Service,
    nodes: V1Node[],
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus> {
    return this.#inGroup(clusterName, service, () =>
      this.#invoke('ensureLoadBalancer', serviceKey(service), signal, async (entry) => {
        await this.#record(entry, 'create', signal);
        const call: UpdateBalancerCall = { service, hosts: [...nodes] };
        await this.#ensureLock.run(() => {
          this.#ensureCalls.push(call);
          return this.ensureCallCb?.(call);
        }, signal);
        const zone = await this.#getZone(entry, signal);
        const name = defaultLoadBalancerName(service);
        const ports = service.spec?.ports ?? [];
        this.balancers.set(name, {
          name,
          region: zone.region,
          loadBalancerIP: service.spec?.loadBalancerIP ?? '',
          ports: ports.map((p) => ({ ...p })),
          hosts: [...nodes],
          clusterName,
          service: {
            namespace: service.metadata?.namespace ?? '',
            name: service.metadata?.name ?? '',
            uid: service.metadata?.uid ?? '',
          },
        });
        const ingress = this.#ingress();
        if (this.balancerIPMode !== undefined) ingress.ipMode = this.balancerIPMode;
        ingress.ports = ports.map((p) => ({ port: p.port, protocol: p.protocol ?? 'TCP' }));
        return { ingress: [ingress] };
      }),
    );
  }

  /**
   * Records `update`, adds to {@link updateCalls} and awaits {@link updateCallCb}, then throws
   * {@link err} if set; otherwise updates the stored balancer's hosts (when it exists).
   */
  updateLoadBalancer(_clusterName: string, service: V1Service, nodes: V1Node[], signal?: AbortSignal): Promise<void> {
    return this.#inGroup(_clusterName, service, () =>
      this.#invoke('updateLoadBalancer', serviceKey(service), signal, async (entry) => {
        await this.#record(entry, 'update', signal);
        const call: UpdateBalancerCall = { service, hosts: [...nodes] };
        await this.#updateLock.run(() => {
          this.#updateCalls.push(call);
          return this.updateCallCb?.(call);
        }, signal);
        this.#throwErr();
        const stored = this.balancers.get(defaultLoadBalancerName(service));
        if (stored !== undefined) stored.hosts = [...nodes];
      }),
    );
  }

  /** Records `delete`, throws {@link err} if set, else removes the stored balancer (if any). */
  ensureLoadBalancerDeleted(_clusterName: string, service: V1Service, signal?: AbortSignal): Promise<void> {
    return this.#inGroup(_clusterName, service, () =>
      this.#invoke('ensureLoadBalancerDeleted', serviceKey(service), signal, async (entry) => {
        await this.#record(entry, 'delete', signal);
        this.#throwErr();
        this.balancers.delete(defaultLoadBalancerName(service));
      }),
    );
  }

  /**
   * Beyond upstream: one page of the stored balancers of `clusterName` (a balancer stored without a cluster is
   * listed for every cluster), sorted by name, {@link balancerListPageSize} per page; the page token is the
   * offset. A balancer without a complete Service record is listed as malformed. Throws {@link err} if set.
   * Records no call name (upstream has no such call).
   * @throws TypeError for a page token that is not an offset this fake issued.
   */
  listLoadBalancers(clusterName: string, options: ListLoadBalancersOptions = {}): Promise<LoadBalancerListPage> {
    const { signal, pageToken } = options;
    return this.#invoke('listLoadBalancers', clusterName, signal, () => {
      this.#throwErr();
      const offset = pageToken === undefined ? 0 : Number(pageToken);
      if (!Number.isSafeInteger(offset) || offset < 0) {
        throw new TypeError(`FakeCloud.listLoadBalancers: bad page token ${JSON.stringify(pageToken)}`);
      }
      const all = [...this.balancers.values()]
        .filter((b) => b.clusterName === undefined || b.clusterName === clusterName)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const size = this.balancerListPageSize;
      const loadBalancers = all.slice(offset, offset + size).map((b): ListedLoadBalancer => {
        const s = b.service;
        if (!s?.namespace || !s.name || !s.uid) {
          return { name: b.name, malformed: 'no complete Service record (namespace, name, uid)' };
        }
        return { name: b.name, service: { ...s } };
      });
      return offset + size < all.length ? { loadBalancers, nextPageToken: String(offset + size) } : { loadBalancers };
    });
  }

  // ---------------------------------------------------------------- Instances

  /** Records `node-addresses`; a registered machine's addresses, else {@link addresses} or {@link err}. */
  nodeAddresses(nodeName: string, signal?: AbortSignal): Promise<V1NodeAddress[]> {
    return this.#invoke('nodeAddresses', nodeName, signal, async (entry) => {
      await this.#record(entry, 'node-addresses', signal);
      return this.#addressesFor(nodeName);
    });
  }

  /** Records `node-addresses-by-provider-id`; as {@link nodeAddresses}, looked up by providerID. */
  nodeAddressesByProviderID(providerID: string, signal?: AbortSignal): Promise<V1NodeAddress[]> {
    return this.#invoke('nodeAddressesByProviderID', providerID, signal, async (entry) => {
      await this.#record(entry, 'node-addresses-by-provider-id', signal);
      return this.#addressesFor(providerID);
    });
  }

  #addressesFor(key: string): V1NodeAddress[] {
    const instance = this.#existing(this.#instances.find(key));
    if (instance !== undefined) return copyAddresses(instance.addresses);
    this.#throwErr();
    return copyAddresses(this.addresses);
  }

  /**
   * Records `instance-id`. A registered machine answers its providerID without the `<provider>://`
   * prefix (or its key). Otherwise throws `extIDErr[nodeName]` if present, else answers
   * `extID[nodeName]`, `''` when missing (no error, as upstream).
   */
  instanceID(nodeName: string, signal?: AbortSignal): Promise<string> {
    return this.#invoke('instanceID', nodeName, signal, async (entry) => {
      await this.#record(entry, 'instance-id', signal);
      const instance = this.#existing(this.#instances.find(nodeName));
      if (instance !== undefined) return instanceIdOf(instance);
      const err = own(this.extIDErr, nodeName);
      if (err !== undefined) throw err;
      return own(this.extID, nodeName) ?? '';
    });
  }

  /** Records `instance-type`; a registered machine's type, else `instanceTypes[nodeName]` or `''`. Never {@link err}. */
  instanceType(nodeName: string, signal?: AbortSignal): Promise<string> {
    return this.#invoke('instanceType', nodeName, signal, async (entry) => {
      await this.#record(entry, 'instance-type', signal);
      return this.#typeFor(nodeName);
    });
  }

  /** Records `instance-type-by-provider-id`; `instanceTypes` is looked up by the providerID string. */
  instanceTypeByProviderID(providerID: string, signal?: AbortSignal): Promise<string> {
    return this.#invoke('instanceTypeByProviderID', providerID, signal, async (entry) => {
      await this.#record(entry, 'instance-type-by-provider-id', signal);
      return this.#typeFor(providerID);
    });
  }

  #typeFor(key: string): string {
    const instance = this.#existing(this.#instances.find(key));
    if (instance !== undefined) return instance.instanceType;
    return own(this.instanceTypes, key) ?? '';
  }

  /** Throws {@link NotImplementedError}, as upstream; records no call. */
  addSSHKeyToAllInstances(user: string, _keyData: Uint8Array, signal?: AbortSignal): Promise<void> {
    return this.#invoke('addSSHKeyToAllInstances', user, signal, () => {
      throw new NotImplementedError();
    });
  }

  /** Answers `hostname`, as upstream; records no call. */
  currentNodeName(hostname: string, signal?: AbortSignal): Promise<string> {
    return this.#invoke('currentNodeName', hostname, signal, () => hostname);
  }

  /**
   * Records `instance-exists-by-provider-id`; a registered machine's `exists`, else
   * {@link errByProviderID} or {@link existsByProviderID}.
   */
  instanceExistsByProviderID(providerID: string, signal?: AbortSignal): Promise<boolean> {
    return this.#invoke('instanceExistsByProviderID', providerID, signal, async (entry) => {
      await this.#record(entry, 'instance-exists-by-provider-id', signal);
      return this.#existsFor(this.#instances.find(providerID));
    });
  }

  /**
   * Records `instance-shutdown-by-provider-id`; an empty providerID throws
   * `cannot shutdown instance with empty providerID`. Then a registered machine's `shutdown`, else
   * {@link errShutdownByProviderID} or {@link nodeShutdown}.
   */
  instanceShutdownByProviderID(providerID: string, signal?: AbortSignal): Promise<boolean> {
    return this.#invoke('instanceShutdownByProviderID', providerID, signal, async (entry) => {
      await this.#record(entry, 'instance-shutdown-by-provider-id', signal);
      if (providerID === '') throw new Error('cannot shutdown instance with empty providerID');
      return this.#shutdownFor(this.#instances.find(providerID));
    });
  }

  #existsFor(instance: FakeInstance | undefined): boolean {
    if (instance !== undefined) return instance.exists;
    if (this.errByProviderID !== undefined) throw this.errByProviderID;
    return this.existsByProviderID;
  }

  #shutdownFor(instance: FakeInstance | undefined): boolean {
    if (instance !== undefined) return instance.shutdown;
    if (this.errShutdownByProviderID !== undefined) throw this.errShutdownByProviderID;
    return this.nodeShutdown;
  }

  // -------------------------------------------------------------- InstancesV2

  /** Records `instance-exists`; as {@link instanceExistsByProviderID}, for the node's machine. */
  instanceExists(node: V1Node, signal?: AbortSignal): Promise<boolean> {
    return this.#invoke('instanceExists', node.metadata?.name ?? '', signal, async (entry) => {
      await this.#record(entry, 'instance-exists', signal);
      return this.#existsFor(this.#instances.findNode(node));
    });
  }

  /** Records `instance-shutdown`; as {@link instanceShutdownByProviderID} without the empty-ID check. */
  instanceShutdown(node: V1Node, signal?: AbortSignal): Promise<boolean> {
    return this.#invoke('instanceShutdown', node.metadata?.name ?? '', signal, async (entry) => {
      await this.#record(entry, 'instance-shutdown', signal);
      return this.#shutdownFor(this.#instances.findNode(node));
    });
  }

  /**
   * {@link overrideInstanceMetadata} when set (no call recorded). Otherwise records
   * `instance-metadata-by-provider-id` and answers the node's registered machine, else
   * `{ providerID: providerID[node name] ?? '', instanceType: instanceTypes[node.spec.providerID] ?? '',
   * nodeAddresses: addresses, zone: zone.failureDomain, region: zone.region, additionalLabels }`,
   * throwing {@link metadataErr} instead when it is set (see its note).
   */
  instanceMetadata(node: V1Node, signal?: AbortSignal): Promise<InstanceMetadata | undefined> {
    const name = node.metadata?.name ?? '';
    return this.#invoke('instanceMetadata', name, signal, async (entry) => {
      const override = this.overrideInstanceMetadata;
      if (override !== undefined) return override(node, signal);
      await this.#record(entry, 'instance-metadata-by-provider-id', signal);
      const instance = this.#existing(this.#instances.findNode(node));
      if (instance !== undefined) return metadataOf(instance);
      if (this.metadataErr !== undefined) throw this.metadataErr;
      return {
        providerID: own(this.providerID, name) ?? '',
        instanceType: own(this.instanceTypes, node.spec?.providerID ?? '') ?? '',
        nodeAddresses: copyAddresses(this.addresses),
        zone: this.zone.failureDomain,
        region: this.zone.region,
        additionalLabels: this.additionalLabels === undefined ? undefined : { ...this.additionalLabels },
      };
    });
  }

  /**
   * Beyond upstream: machines per page of `listInstanceStates`, a positive integer; `undefined` (the default)
   * leaves the method out of the InstancesV2 facet, as a provider without batch reads. Setting it adds
   * {@link listInstanceStates}: a page of the registered machines that exist and have a providerID, with their
   * metadata and shutdown state (the upstream knobs and {@link overrideInstanceMetadata} do not answer it).
   * @throws RangeError naming `instanceStatePageSize` when it is not `undefined` or a positive integer.
   */
  get instanceStatePageSize(): number | undefined {
    return this.#instanceStatePageSize;
  }

  set instanceStatePageSize(size: number | undefined) {
    if (size !== undefined && (!Number.isInteger(size) || size < 1)) {
      throw new RangeError(`instanceStatePageSize: expected a positive integer, got ${String(size)}`);
    }
    this.#instanceStatePageSize = size;
    this.listInstanceStates = size === undefined ? undefined : this.#listInstanceStates;
  }

  /** One page of the batch read; the page token is the page number (`'2'`, `'3'`, …). */
  readonly #listInstanceStates = (pageToken: string | undefined, signal?: AbortSignal): Promise<InstanceStatePage> => {
    const page = pageToken === undefined ? 1 : Number(pageToken);
    return this.#invoke('listInstanceStates', `page ${pageToken ?? 1}`, signal, async (entry) => {
      if (pageToken !== undefined && !(Number.isInteger(page) && page >= 2)) {
        throw new Error(`invalid page token ${JSON.stringify(pageToken)}`);
      }
      await this.#record(entry, 'list-instance-states', signal);
      return instanceStatePage(this.#instances.list(), this.#instanceStatePageSize ?? 1, page);
    });
  };

  // -------------------------------------------------------------------- Zones

  /** Records `get-zone`; {@link zone} or {@link err}. */
  getZone(signal?: AbortSignal): Promise<Zone> {
    return this.#invoke('getZone', '', signal, (entry) => this.#getZone(entry, signal));
  }

  /** Records `get-zone-by-provider-id`; a registered machine's zone, else {@link zone} or {@link err}. */
  getZoneByProviderID(providerID: string, signal?: AbortSignal): Promise<Zone> {
    return this.#invoke('getZoneByProviderID', providerID, signal, async (entry) => {
      await this.#record(entry, 'get-zone-by-provider-id', signal);
      return this.#zoneFor(providerID);
    });
  }

  /** Records `get-zone-by-node-name`; a registered machine's zone, else {@link zone} or {@link err}. */
  getZoneByNodeName(nodeName: string, signal?: AbortSignal): Promise<Zone> {
    return this.#invoke('getZoneByNodeName', nodeName, signal, async (entry) => {
      await this.#record(entry, 'get-zone-by-node-name', signal);
      return this.#zoneFor(nodeName);
    });
  }

  #zoneFor(key: string): Zone {
    const instance = this.#existing(this.#instances.find(key));
    if (instance !== undefined) return zoneOf(instance);
    this.#throwErr();
    return { ...this.zone };
  }

  // ----------------------------------------------------------------- Clusters

  /** {@link clusterList} or {@link err}; records no call. */
  listClusters(signal?: AbortSignal): Promise<string[]> {
    return this.#invoke('listClusters', '', signal, () => {
      this.#throwErr();
      return [...this.clusterList];
    });
  }

  /** {@link masterName} or {@link err}; records no call. */
  master(clusterName: string, signal?: AbortSignal): Promise<string> {
    return this.#invoke('master', clusterName, signal, () => {
      this.#throwErr();
      return this.masterName;
    });
  }

  // ------------------------------------------------------------------- Routes

  /** Records `list-routes`; copies of the cluster's routes in insertion order, or {@link err}. */
  listRoutes(clusterName: string, signal?: AbortSignal): Promise<Route[]> {
    return this.#invoke('listRoutes', clusterName, signal, async (entry) => {
      await this.#record(entry, 'list-routes', signal);
      const routes = routeTable.listRoutes(this.#routes(), clusterName);
      this.#throwErr();
      return routes;
    });
  }

  /**
   * Records `create-route`; stores a copy named `<cluster>-<targetNode>-<destinationCIDR>` (the hint
   * is ignored). On a name conflict sets {@link err} (sticky) to `route "<name>" already exists` and throws it.
   */
  createRoute(clusterName: string, nameHint: string, route: Route, signal?: AbortSignal): Promise<void> {
    return this.#invoke('createRoute', `${clusterName}/${route.targetNode}`, signal, async (entry) => {
      await this.#record(entry, 'create-route', signal);
      const conflict = routeTable.createRoute(this.#routes(), clusterName, route);
      if (conflict !== undefined) {
        this.err = conflict;
        throw conflict;
      }
    });
  }

  /**
   * Records `delete-route`; removes the cluster's first route with the same target node and CIDR.
   * When none matches sets {@link err} (sticky) to `no route found for node:<node> with DestinationCIDR== <cidr>`
   * and throws it.
   */
  deleteRoute(clusterName: string, route: Route, signal?: AbortSignal): Promise<void> {
    return this.#invoke('deleteRoute', `${clusterName}/${route.targetNode}`, signal, async (entry) => {
      await this.#record(entry, 'delete-route', signal);
      const missing = routeTable.deleteRoute(this.#routes(), clusterName, route);
      if (missing !== undefined) {
        this.err = missing;
        throw missing;
      }
    });
  }

  // ---------------------------------------------------------------- PVLabeler

  /** A copy of `volumeLabelMap[pv name]`, or the error `label not found for volume`; records no call. */
  getLabelsForVolume(pv: V1PersistentVolume, signal?: AbortSignal): Promise<Record<string, string>> {
    const name = pv.metadata?.name ?? '';
    return this.#invoke('getLabelsForVolume', name, signal, () => {
      const labels = own(this.volumeLabelMap, name);
      if (labels === undefined) throw new Error('label not found for volume');
      return { ...labels };
    });
  }

  // ---------------------------------------------------------------- fake only

  /**
   * Records `list`; the {@link machines} whose name matches `filter` (a RegExp, or a pattern string
   * compiled without flags), or {@link err} (upstream `List`).
   * @throws SyntaxError when `filter` is not a valid pattern.
   */
  list(filter: string | RegExp, signal?: AbortSignal): Promise<string[]> {
    return this.#invoke('list', String(filter), signal, async (entry) => {
      await this.#record(entry, 'list', signal);
      const re =
        typeof filter === 'string' ? new RegExp(filter) : new RegExp(filter.source, filter.flags.replace(/[gy]/g, ''));
      const matched = this.machines.filter((m) => re.test(m));
      this.#throwErr();
      return matched;
    });
  }
}
