/**
 * The LoadBalancer facet over mockcloud load balancers.
 *
 * Ownership: a cloud load balancer belongs to a Service when it carries both
 * `mockcloud.ccm-kit.io/service-uid=<Service UID>` and `mockcloud.ccm-kit.io/cluster-id=<clusterID>`.
 * Lookup order: the ID annotation `mockcloud.ccm-kit.io/load-balancer-id` (written back after creation,
 * or set by a user to adopt an existing load balancer), then the ownership labels. An annotated ID that does
 * not exist stops ensure with an `InvalidAnnotationError` (a Warning Event) instead of creating a new load
 * balancer (docs/decisions/0061); a malformed one counts as absent on delete. Only owned load
 * balancers are ever changed or deleted; an annotated, unlabelled one is adopted (labelled) on ensure.
 *
 * - ensure: create or update, record the ID on the Service (patch helper), then `RetryError` while the
 *   load balancer is provisioning; a 409 on create (the name is taken, for example by a create whose
 *   answer was lost) is resolved by looking the name up, so retries never create duplicates.
 * - update: targets only.
 * - delete: idempotent; a load balancer that is already gone is success. The recorded ID annotation is removed
 *   first, so that a Service switched back to LoadBalancer gets a new load balancer (docs/decisions/0120).
 */
import {
  defaultLoadBalancerName,
  InvalidAnnotationError,
  type ListedLoadBalancer,
  type ListLoadBalancersOptions,
  type LoadBalancer,
  type LoadBalancerCapabilities,
  type LoadBalancerListPage,
  patchService,
  RetryError,
  type ServiceStatusClient,
} from '@ccm-kit/cloud-provider';
import { type Logger } from '@ccm-kit/runtime';
import { isNotFound, statusCode } from '@ccm-kit/runtime/client';
import type { V1LoadBalancerStatus, V1Node, V1Service } from '@kubernetes/client-node';
import {
  type CloudLoadBalancer,
  type LoadBalancerSpec,
  MockCloudApiError,
  type MockCloudClient,
} from '../client/index.js';
import { isValidID } from '../client/ids.js';
import { selectorFromLabels } from '../shared/labels.js';
import {
  type DesiredLoadBalancer,
  desiredLoadBalancer,
  loadBalancerStatus,
  selectTargets,
} from './load-balancer-spec.js';
import {
  ANNOTATION_LOAD_BALANCER_ID,
  LABEL_CLUSTER_ID,
  LABEL_SERVICE_NAME,
  LABEL_SERVICE_NAMESPACE,
  LABEL_SERVICE_UID,
} from './names.js';
import type { ServerCache } from './server-cache.js';

/** What {@link MockCloudLoadBalancers} needs. */
export interface LoadBalancerDeps {
  client: MockCloudClient;
  cache: ServerCache;
  clusterID: string;
  /** Requeue delay while provisioning, in ms. */
  provisioningRetryMs: number;
  /** Health-check interval, in seconds. */
  healthCheckIntervalSeconds: number;
  /** `namespace`: one load-balancer group per namespace; `none`: no groups (default). */
  groupBy?: 'none' | 'namespace';
  /** The Service patch client; `undefined` until the provider is initialized. */
  serviceClient: () => ServiceStatusClient | undefined;
  logger: Logger;
}

function key(svc: V1Service): string {
  return `${svc.metadata?.namespace ?? ''}/${svc.metadata?.name ?? ''}`;
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

function sortedListeners(spec: { listeners?: LoadBalancerSpec['listeners'] }): string {
  return canonical([...(spec.listeners ?? [])].sort((a, b) => a.port - b.port || a.protocol.localeCompare(b.protocol)));
}

/** True when `lb` already has every field `spec` sets. */
function matches(lb: CloudLoadBalancer, spec: LoadBalancerSpec): boolean {
  if (spec.labels && canonical(lb.labels) !== canonical(spec.labels)) return false;
  if (spec.listeners && sortedListeners(lb) !== sortedListeners(spec)) return false;
  if (
    spec.targetServerIDs &&
    canonical([...lb.targetServerIDs].sort()) !== canonical([...spec.targetServerIDs].sort())
  ) {
    return false;
  }
  if (spec.healthCheck !== undefined && canonical(lb.healthCheck ?? null) !== canonical(spec.healthCheck)) return false;
  return true;
}

type Ownership = { kind: 'ours' } | { kind: 'unowned' } | { kind: 'foreign'; reason: string };

/** The LoadBalancer facet. */
/**
 * What mockcloud load balancers support. They have no firewall, so a Service asking for
 * `loadBalancerSourceRanges` is refused by the service controller instead of getting an open load balancer; they
 * have one public IPv4 address the cloud picks, forward to node ports, and balance without client affinity.
 */
const MOCKCLOUD_LOAD_BALANCER_CAPABILITIES: LoadBalancerCapabilities = {
  protocols: ['TCP', 'UDP'],
  mixedProtocols: true,
  loadBalancerSourceRanges: false,
  externalTrafficPolicyLocal: true,
  ipFamilies: ['IPv4'],
  dualStack: false,
  loadBalancerIP: false,
  allocateLoadBalancerNodePortsFalse: false,
  sessionAffinityClientIP: false,
  ipModes: ['VIP', 'Proxy'],
};

export class MockCloudLoadBalancers implements LoadBalancer {
  readonly capabilities = MOCKCLOUD_LOAD_BALANCER_CAPABILITIES;
  readonly #d: LoadBalancerDeps;

  /**
   * With `loadBalancer.groupBy: namespace`, the Service's namespace: the service controller then never calls the
   * cloud for two Services of one namespace at once. An own property, `undefined` without groups, so the
   * provider declares none (upstream behaviour).
   */
  readonly loadBalancerGroup: ((clusterName: string, service: V1Service) => string | undefined) | undefined;

  constructor(deps: LoadBalancerDeps) {
    this.#d = deps;
    this.loadBalancerGroup =
      deps.groupBy === 'namespace' ? (_clusterName, service) => service.metadata?.namespace || undefined : undefined;
  }

  /** `a` + the Service UID without dashes, at most 32 characters (upstream's default name). */
  getLoadBalancerName(_clusterName: string, service: V1Service): string {
    return defaultLoadBalancerName(service);
  }

  /** The status of this Service's load balancer (`{}` while provisioning), or `undefined` when it has none. */
  async getLoadBalancer(
    _clusterName: string,
    service: V1Service,
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus | undefined> {
    const lb = await this.#find(service, false, signal);
    return lb && loadBalancerStatus(lb);
  }

  /**
   * Creates or updates the Service's load balancer and returns its status.
   * @throws RetryError (after `provisioningRetryMs`) while the load balancer is provisioning.
   * @throws Error for a bad port or annotation (before any cloud call), an annotated load balancer owned by
   *   someone else, a name taken by a load balancer this Service does not own, a failed ID write-back, and
   *   every API error.
   */
  async ensureLoadBalancer(
    _clusterName: string,
    service: V1Service,
    nodes: V1Node[],
    signal?: AbortSignal,
  ): Promise<V1LoadBalancerStatus> {
    const desired = desiredLoadBalancer(service, this.#d.healthCheckIntervalSeconds);
    const owner = this.#ownerLabels(service);
    const lb = await this.#withTargets(service, nodes, desired, signal, async (targetServerIDs) => {
      const found = await this.#find(service, true, signal);
      const spec: LoadBalancerSpec = {
        labels: { ...(found?.labels ?? {}), ...owner, ...this.#infoLabels(service) },
        listeners: desired.listeners,
        targetServerIDs,
        healthCheck: desired.healthCheck,
      };
      if (!found) return this.#create(service, spec, signal);
      if (matches(found, spec)) return found;
      this.#log(service).v(2).info('Updating load balancer', { id: found.id });
      return this.#d.client.updateLoadBalancer(found.id, spec, signal);
    });
    await this.#recordID(service, lb.id);
    if (lb.status !== 'active' || !lb.publicIP) {
      throw new RetryError(
        `mockcloud: load balancer ${lb.id} for service ${key(service)} is still provisioning`,
        this.#d.provisioningRetryMs,
      );
    }
    return loadBalancerStatus(lb);
  }

  /**
   * Points the Service's load balancer at `nodes` (targets only).
   * @throws Error when the Service has no load balancer yet, for a bad node-selector annotation, and every API error.
   */
  async updateLoadBalancer(
    _clusterName: string,
    service: V1Service,
    nodes: V1Node[],
    signal?: AbortSignal,
  ): Promise<void> {
    const desired = desiredLoadBalancer(service, this.#d.healthCheckIntervalSeconds);
    const lb = await this.#find(service, false, signal);
    if (!lb) throw new Error(`mockcloud: service ${key(service)} has no load balancer yet`);
    await this.#withTargets(service, nodes, desired, signal, async (targetServerIDs) => {
      if (!matches(lb, { targetServerIDs }))
        await this.#d.client.updateLoadBalancer(lb.id, { targetServerIDs }, signal);
    });
  }

  /**
   * Deletes every load balancer this Service owns; resolves when none is left (also when there was none).
   * When there is one to delete, the ID annotation is removed from the Service first (the provider wrote it; a
   * Service that is gone already is fine), so that the Service can get a new load balancer later
   * (docs/decisions/0120-mockcloud-load-balancer-id-removed-on-delete.md).
   * Never reads the Service's other annotations, so a bad annotation cannot block deletion.
   * @throws the API's errors other than 404; Error `could not remove the load-balancer ID from service …`
   *   (the patch error as `cause`) when the annotation cannot be removed: nothing is deleted then, and a retry
   *   starts over.
   */
  async ensureLoadBalancerDeleted(_clusterName: string, service: V1Service, signal?: AbortSignal): Promise<void> {
    const ids = new Set<string>();
    const annotated = service.metadata?.annotations?.[ANNOTATION_LOAD_BALANCER_ID];
    // A malformed ID names no load balancer: it counts as absent, so it can never pin the Service.
    if (annotated && isValidID(annotated)) {
      const lb = await this.#d.client.getLoadBalancer(annotated, signal);
      if (lb && this.#ownership(lb, service).kind === 'ours') ids.add(lb.id);
    }
    if (service.metadata?.uid) {
      const owned = await this.#d.client.listLoadBalancers({
        labelSelector: selectorFromLabels(this.#ownerLabels(service)),
        signal,
      });
      for (const lb of owned) ids.add(lb.id);
    }
    // The recorded ID goes before the load balancers: left behind, it would name one that no longer exists, and
    // a later ensure (the Service switched back to LoadBalancer) would refuse it (decisions 0061, 0120).
    if (ids.size > 0) await this.#forgetID(service, ids);
    for (const id of ids) {
      const deleted = await this.#d.client.deleteLoadBalancer(id, signal);
      this.#log(service).info(deleted ? 'Deleted load balancer' : 'Load balancer was already gone', { id });
    }
  }

  /**
   * One page of the load balancers labelled with this provider's cluster ID (`mockcloud.ccm-kit.io/cluster-id`;
   * `clusterName` is not used: the cluster ID is the provider's own), each with the Service recorded in its
   * `service-namespace`, `service-name` and `service-uid` labels. A load balancer missing one of them is listed
   * as malformed. The page token is the API's page number.
   * @throws Error for a page token that is not a page number; every API error.
   */
  async listLoadBalancers(_clusterName: string, options: ListLoadBalancersOptions = {}): Promise<LoadBalancerListPage> {
    const page = options.pageToken === undefined ? 1 : Number(options.pageToken);
    if (!Number.isSafeInteger(page) || page < 1) {
      throw new Error(`mockcloud: bad load-balancer page token ${JSON.stringify(options.pageToken)}`);
    }
    const { items, nextPage } = await this.#d.client.listLoadBalancerPage(page, {
      labelSelector: selectorFromLabels({ [LABEL_CLUSTER_ID]: this.#d.clusterID }),
      signal: options.signal,
    });
    const loadBalancers = items.map((lb): ListedLoadBalancer => {
      const namespace = lb.labels[LABEL_SERVICE_NAMESPACE];
      const name = lb.labels[LABEL_SERVICE_NAME];
      const uid = lb.labels[LABEL_SERVICE_UID];
      const missing = [
        [LABEL_SERVICE_NAMESPACE, namespace],
        [LABEL_SERVICE_NAME, name],
        [LABEL_SERVICE_UID, uid],
      ]
        .filter(([, v]) => !v)
        .map(([k]) => k);
      if (missing.length > 0) return { name: lb.id, malformed: `label ${missing.join(', ')} missing or empty` };
      return { name: lb.id, service: { namespace: namespace!, name: name!, uid: uid! } };
    });
    return nextPage === null ? { loadBalancers } : { loadBalancers, nextPageToken: String(nextPage) };
  }

  // ---- helpers ---------------------------------------------------------------------------------

  #log(service: V1Service): Logger {
    return this.#d.logger.with({ service: key(service) });
  }

  #ownerLabels(service: V1Service): Record<string, string> {
    const uid = service.metadata?.uid;
    if (!uid) throw new Error(`mockcloud: service ${key(service)} has no metadata.uid`);
    return { [LABEL_SERVICE_UID]: uid, [LABEL_CLUSTER_ID]: this.#d.clusterID };
  }

  #infoLabels(service: V1Service): Record<string, string> {
    return {
      [LABEL_SERVICE_NAMESPACE]: service.metadata?.namespace ?? '',
      [LABEL_SERVICE_NAME]: service.metadata?.name ?? '',
    };
  }

  #ownership(lb: CloudLoadBalancer, service: V1Service): Ownership {
    const cluster = lb.labels[LABEL_CLUSTER_ID];
    const uid = lb.labels[LABEL_SERVICE_UID];
    if (cluster !== undefined && cluster !== this.#d.clusterID) {
      return { kind: 'foreign', reason: `it belongs to cluster ${cluster}` };
    }
    if (uid !== undefined && uid !== service.metadata?.uid) {
      return { kind: 'foreign', reason: `it belongs to another Service (UID ${uid})` };
    }
    return cluster === undefined || uid === undefined ? { kind: 'unowned' } : { kind: 'ours' };
  }

  /**
   * The Service's load balancer: by ID annotation (owned, or unowned when `adopt`), else by ownership labels.
   * With `adopt` (the ensure path), an annotated ID that does not exist is an error: it may be a typo, and
   * creating a new, billable load balancer in its place would hide it.
   * @throws Error with `adopt` when the annotated load balancer belongs to someone else.
   * @throws InvalidAnnotationError with `adopt` when the annotated load balancer does not exist.
   */
  async #find(service: V1Service, adopt: boolean, signal?: AbortSignal): Promise<CloudLoadBalancer | undefined> {
    const annotated = service.metadata?.annotations?.[ANNOTATION_LOAD_BALANCER_ID];
    // Malformed IDs were rejected by the annotation parser on the ensure path; elsewhere they name nothing.
    if (annotated && isValidID(annotated)) {
      const lb = await this.#d.client.getLoadBalancer(annotated, signal);
      if (lb) {
        const o = this.#ownership(lb, service);
        if (o.kind === 'ours' || (adopt && o.kind === 'unowned')) return lb;
        if (adopt && o.kind === 'foreign') {
          throw new Error(
            `mockcloud: service ${key(service)}: annotation ${ANNOTATION_LOAD_BALANCER_ID} names load balancer ${lb.id}, but ${o.reason}`,
          );
        }
      } else if (adopt) {
        throw new InvalidAnnotationError(
          [
            {
              annotation: ANNOTATION_LOAD_BALANCER_ID,
              value: annotated,
              expected: 'the ID of an existing load balancer',
              message: `annotation ${ANNOTATION_LOAD_BALANCER_ID}: load balancer "${annotated}" does not exist; correct the ID, or remove the annotation to let the provider create a load balancer`,
            },
          ],
          key(service),
        );
      }
    }
    const owned = await this.#d.client.listLoadBalancers({
      labelSelector: selectorFromLabels(this.#ownerLabels(service)),
      signal,
    });
    owned.sort((a, b) => (a.id < b.id ? -1 : 1));
    if (owned.length > 1) {
      this.#log(service).warn("Several load balancers carry this Service's labels; using the oldest", {
        ids: owned.map((l) => l.id),
      });
    }
    return owned[0];
  }

  async #create(service: V1Service, spec: LoadBalancerSpec, signal?: AbortSignal): Promise<CloudLoadBalancer> {
    const name = defaultLoadBalancerName(service);
    try {
      const lb = await this.#d.client.createLoadBalancer({ ...spec, name }, signal);
      this.#log(service).info('Created load balancer', { id: lb.id, name });
      return lb;
    } catch (err) {
      if (!(err instanceof MockCloudApiError) || err.status !== 409) throw err;
      // The name is taken: most likely by our own earlier create whose answer or ID write-back was lost.
      const [existing] = await this.#d.client.listLoadBalancers({ name, signal });
      if (existing && this.#ownership(existing, service).kind === 'ours') {
        return matches(existing, spec) ? existing : this.#d.client.updateLoadBalancer(existing.id, spec, signal);
      }
      throw new Error(
        `mockcloud: service ${key(service)}: load balancer name ${name} is taken by ${existing?.id ?? 'a load balancer'} that this Service does not own`,
        { cause: err },
      );
    }
  }

  /**
   * Sends a create or update with the target servers of `nodes`. The server list is cached, so a server deleted
   * since may still be in it, and the API refuses the whole request (400 `invalid_input`, `server_id … does not
   * exist`): then the list is read again and the request sent once more with the servers that exist.
   */
  async #withTargets<T>(
    service: V1Service,
    nodes: readonly V1Node[],
    desired: DesiredLoadBalancer,
    signal: AbortSignal | undefined,
    send: (targetServerIDs: string[]) => Promise<T>,
  ): Promise<T> {
    try {
      return await send(await this.#targets(service, nodes, desired, signal));
    } catch (err) {
      if (!isUnknownTargetError(err)) throw err;
      this.#log(service).info('A target server is gone; reading the server list again', { err: err.message });
      return send(await this.#targets(service, nodes, desired, signal, true));
    }
  }

  async #targets(
    service: V1Service,
    nodes: readonly V1Node[],
    desired: DesiredLoadBalancer,
    signal?: AbortSignal,
    fresh = false,
  ): Promise<string[]> {
    let snap = await this.#d.cache.get(signal, fresh);
    let sel = selectTargets(nodes, desired.nodeSelector, (id) => snap.byID.has(id));
    if (!fresh && sel.skipped.some((s) => s.unknownServer)) {
      // A Node may point at a server created after the snapshot: list once more before skipping it.
      snap = await this.#d.cache.get(signal, true);
      sel = selectTargets(nodes, desired.nodeSelector, (id) => snap.byID.has(id));
    }
    if (sel.skipped.length > 0) {
      this.#log(service).v(2).info('Skipping nodes that cannot be load-balancer targets', { skipped: sel.skipped });
    }
    return sel.serverIDs;
  }

  /**
   * Removes the ID annotation from the Service, whatever `service` (the controller's copy, which may predate the
   * provider's own write-back) shows. The patch carries the Service's UID: the controller may hand over the last
   * state of a Service deleted and re-created under the same name, whose annotation is not ours to remove (the
   * server refuses the UID change, 422). A Service gone (404) or replaced is fine.
   */
  #forgetID(service: V1Service, ids: ReadonlySet<string>): Promise<void> {
    const { namespace = '', name = '', uid } = service.metadata ?? {};
    const patch = { metadata: { annotations: { [ANNOTATION_LOAD_BALANCER_ID]: null }, uid } };
    return this.#writeBack(service, (client) => client.patchServiceStatus(namespace, name, patch), {
      skipped: 'not removing the load-balancer ID',
      failed: `could not remove the load-balancer ID (${[...ids].join(', ')}) from service ${key(service)}`,
      gone: (err) => isNotFound(err) || statusCode(err) === 422,
    });
  }

  /** Writes the load balancer's ID to the Service annotation when it is not there yet. */
  async #recordID(service: V1Service, id: string): Promise<void> {
    if (service.metadata?.annotations?.[ANNOTATION_LOAD_BALANCER_ID] === id) return;
    const annotations = { ...(service.metadata?.annotations ?? {}), [ANNOTATION_LOAD_BALANCER_ID]: id };
    await this.#writeBack(
      service,
      (client) => patchService(client, service, { ...service, metadata: { ...service.metadata, annotations } }),
      {
        skipped: 'not recording the load-balancer ID',
        failed: `could not record load balancer ${id} on service ${key(service)}`,
      },
    );
  }

  /**
   * One write to the Service (status subresource, as the service controller's). Without a client yet, logs
   * `No Kubernetes client yet …; <skipped>` and writes nothing.
   * @throws Error `mockcloud: <failed>: <reason>` (the patch error as `cause`), unless `gone(err)`.
   */
  async #writeBack(
    service: V1Service,
    send: (client: ServiceStatusClient) => Promise<unknown>,
    text: { skipped: string; failed: string; gone?: (err: unknown) => boolean },
  ): Promise<void> {
    const client = this.#d.serviceClient();
    if (!client) {
      this.#log(service).warn(`No Kubernetes client yet (initialize has not run); ${text.skipped}`);
      return;
    }
    try {
      await send(client);
    } catch (err) {
      if (text.gone?.(err)) return;
      throw new Error(`mockcloud: ${text.failed}: ${(err as Error).message ?? String(err)}`, { cause: err });
    }
  }
}

/** The API's answer to targets naming a server that does not exist (any more). */
function isUnknownTargetError(err: unknown): err is MockCloudApiError {
  return (
    err instanceof MockCloudApiError &&
    err.status === 400 &&
    err.code === 'invalid_input' &&
    /server_id \S+ does not exist/.test(err.message)
  );
}
