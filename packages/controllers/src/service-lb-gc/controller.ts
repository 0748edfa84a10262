/**
 * `service-lb-gc-controller`: finds the load balancers this cluster owns whose Service is gone and, in `delete`
 * mode, deletes them. No upstream counterpart: a Service deleted while its cleanup finalizer was stripped, or
 * while no CCM ran, leaves its balancer behind for good (kubernetes/kubernetes issue 53451).
 *
 * One pass: the informer must be synced; the provider lists every page (`LoadBalancer.listLoadBalancers`); each
 * entry is classified against the Services of the cache (see `classify.ts`); an orphan is acted on only when two
 * passes at least the grace period apart found it so (see `grace.ts`). Before a delete the Service is read from
 * the API server once more; any error, a partial listing or a malformed record means no delete.
 */
import type { Informer, LoadBalancer, ListedLoadBalancer, OwnedLoadBalancer } from '@ccm-kit/cloud-provider';
import { isMalformedLoadBalancerRecord } from '@ccm-kit/cloud-provider';
import { createLogger, type Logger } from '@ccm-kit/runtime';
import { withCloudLane } from '@ccm-kit/runtime/budget';
import { callOptions, isNotFound } from '@ccm-kit/runtime/client';
import { runController } from '@ccm-kit/runtime/controller';
import { type EventObject, type EventRecorder } from '@ccm-kit/runtime/events';
import type { CoreV1Api, V1Service } from '@kubernetes/client-node';
import type { CloudControllerConfig } from '../contract/controller-config.js';
import type { ControllerOptions } from '../contract/controller-options.js';
import {
  classify,
  type OrphanState,
  recordedKey,
  recordProblem,
  serviceFromRecord,
  servicesByUID,
} from './classify.js';
import { defaultLoadBalancerGCConfig, type LoadBalancerGCConfig } from '../contract/load-balancer-gc-config.js';
import {
  EVENT_DELETE_ORPHANED_LOAD_BALANCER_FAILED,
  EVENT_DELETED_ORPHANED_LOAD_BALANCER,
  EVENT_ORPHANED_LOAD_BALANCER,
  EVENT_ORPHANED_LOAD_BALANCER_KEPT,
} from './events.js';
import { groupOfService, loadBalancerGroupGate } from '../shared/load-balancer-groups.js';
import { type DueOrphan, OrphanSightings } from './grace.js';
import { listAllLoadBalancers } from './listing.js';
import { loadBalancerGCMetrics } from './metrics.js';

/** A LoadBalancer facet that can list. */
export type ListingLoadBalancer = LoadBalancer & Required<Pick<LoadBalancer, 'listLoadBalancers'>>;

/** The API call of the collector: the live read of a Service right before a delete. */
export type LoadBalancerCollectorApi = Pick<CoreV1Api, 'readNamespacedService'>;

/**
 * The settings of {@link LoadBalancerCollector}: `clusterName` (`--cluster-name`); `loadBalancerClass` (the
 * service controller's option; undefined: upstream, Services without a class); `loadBalancerGC` (`--lb-gc-mode`,
 * `--lb-gc-grace-period`, `--lb-gc-period`; default `defaultLoadBalancerGCConfig`).
 */
export type LoadBalancerCollectorConfig = Pick<CloudControllerConfig, 'clusterName'> &
  Partial<Pick<CloudControllerConfig, 'loadBalancerClass' | 'loadBalancerGC'>>;

/**
 * Construction options of {@link LoadBalancerCollector}: the `service-controller` client (it reads the Service
 * from the API server once more before each delete), the Service informer, a provider whose LoadBalancer facet
 * lists (`listLoadBalancers`), the recorder, the logger (default `createLogger('service-lb-gc-controller')`) and
 * {@link LoadBalancerCollectorConfig}; plus what tests replace.
 */
export interface LoadBalancerCollectorOptions extends ControllerOptions<
  LoadBalancerCollectorApi,
  LoadBalancerCollectorConfig,
  'services'
> {
  /** Clock in ms (default `Date.now`); tests pass a fake one. */
  readonly now?: () => number;
  /** Runs each cloud call (default: under `withCloudLane('periodic', …)`, the cloud budget's lowest lane). */
  readonly cloudCall?: <T>(call: () => Promise<T>) => Promise<T>;
}

/** What the collector works with, resolved from its options. */
interface CollectorParts {
  readonly loadBalancer: ListingLoadBalancer;
  readonly services: Informer<V1Service>;
  readonly client: LoadBalancerCollectorApi;
  readonly clusterName: string;
  readonly loadBalancerClass?: string;
  readonly config: LoadBalancerGCConfig;
  readonly recorder: EventRecorder;
}

/** What one pass found and did, by balancer name. */
export interface CollectorPassResult {
  /** False when the pass decided nothing: informer not synced, or the listing failed or was partial. */
  readonly complete: boolean;
  /** Why the pass was not complete. */
  readonly reason?: string;
  readonly listed: number;
  readonly malformed: readonly string[];
  /** Orphans of this pass (grace period passed or not), by state. */
  readonly orphaned: Readonly<Record<'service-gone' | 'not-wanted', readonly string[]>>;
  /** Dry run: due for deletion. */
  readonly wouldDelete: readonly string[];
  readonly deleted: readonly string[];
  /** Due, but not deleted: the Service exists (not-wanted, or found by the live read), or the delete failed. */
  readonly kept: readonly string[];
}

const incomplete = (reason: string): CollectorPassResult => ({
  complete: false,
  reason,
  listed: 0,
  malformed: [],
  orphaned: { 'service-gone': [], 'not-wanted': [] },
  wouldDelete: [],
  deleted: [],
  kept: [],
});

export class LoadBalancerCollector {
  readonly #o: CollectorParts;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #call: <T>(call: () => Promise<T>) => Promise<T>;
  readonly #sightings: OrphanSightings;
  readonly #metrics = loadBalancerGCMetrics();
  /** Balancers found malformed by the last complete pass: each is logged when first found, not on every pass. */
  #malformedLogged = new Set<string>();

  /**
   * @throws Error when the provider's LoadBalancer facet is missing or cannot list (the descriptor refuses to
   *   start before, naming `--controllers` and the fix).
   */
  constructor(options: LoadBalancerCollectorOptions) {
    const loadBalancer = options.cloud.loadBalancer?.() ?? undefined;
    if (typeof loadBalancer?.listLoadBalancers !== 'function') {
      throw new Error('service-lb-gc-controller needs a LoadBalancer facet that implements listLoadBalancers');
    }
    const { config } = options;
    this.#o = {
      loadBalancer: loadBalancer as ListingLoadBalancer,
      services: options.informers.services(),
      client: options.client,
      clusterName: config.clusterName,
      loadBalancerClass: config.loadBalancerClass,
      config: config.loadBalancerGC ?? defaultLoadBalancerGCConfig,
      recorder: options.recorder,
    };
    this.#log = options.logger ?? createLogger('service-lb-gc-controller');
    this.#now = options.now ?? Date.now;
    this.#call = options.cloudCall ?? ((call) => withCloudLane('periodic', call));
    this.#sightings = new OrphanSightings(this.#o.config.gracePeriodMs);
  }

  /**
   * `ensureLoadBalancerDeleted` for the rebuilt Service; with load-balancer groups, while holding its group, so that
   * it never overlaps the service controller's calls for the group (docs/decisions/0207).
   * @throws the group's read error, the abort while waiting for the group, or the provider's error.
   */
  async #deleteInGroup(service: V1Service, signal: AbortSignal): Promise<void> {
    const { loadBalancer, clusterName } = this.#o;
    const remove = () => this.#call(() => loadBalancer.ensureLoadBalancerDeleted(clusterName, service, signal));
    const group = groupOfService(loadBalancer, clusterName, service);
    if (group === undefined) return remove();
    return loadBalancerGroupGate(loadBalancer).run(group, remove, signal);
  }

  /**
   * Runs until `signal` aborts ({@link runController}): waits for the Service cache, then one pass every
   * `periodMs` (non-sliding, the first at once).
   */
  run(signal: AbortSignal): Promise<void> {
    const { mode, gracePeriodMs, periodMs } = this.#o.config;
    return runController(signal, {
      name: 'service-lb-gc-controller',
      logger: this.#log,
      logLines: {
        starting: 'Starting orphaned load-balancer collector',
        startingFields: { mode, gracePeriodMs, periodMs },
        shuttingDown: 'Shutting down orphaned load-balancer collector',
      },
      informers: [this.#o.services],
      passes: [
        {
          run: async () => {
            try {
              await this.pass(signal);
            } catch (err) {
              if (!signal.aborted) this.#log.error(err, 'Orphaned load-balancer pass failed');
            }
          },
          periodMs,
          sliding: false,
        },
      ],
    });
  }

  /** The Service as stored in the API server now, `undefined` on 404; rejects on any other error. */
  async #readService(namespace: string, name: string, signal: AbortSignal): Promise<V1Service | undefined> {
    try {
      return await this.#o.client.readNamespacedService({ namespace, name }, callOptions({ signal }));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * One pass. Never deletes when the informer is not synced, the listing failed or was partial, a record is
   * malformed, or a Service with the recorded UID exists.
   * @throws the signal's reason when it aborts.
   */
  async pass(signal: AbortSignal): Promise<CollectorPassResult> {
    const { services, loadBalancer, clusterName } = this.#o;
    if (!services.hasSynced()) {
      this.#log.info('Service informer not synced; skipping this pass');
      return incomplete('informer not synced');
    }
    let entries: ListedLoadBalancer[];
    try {
      entries = await listAllLoadBalancers(
        { listLoadBalancers: (c, opts) => this.#call(() => loadBalancer.listLoadBalancers(c, opts)) },
        clusterName,
        signal,
      );
    } catch (err) {
      signal.throwIfAborted();
      this.#metrics.failedPasses.inc();
      this.#log.error(err, 'Listing load balancers failed; nothing is deleted on this pass');
      return incomplete(`listing failed: ${(err as Error)?.message ?? String(err)}`);
    }
    // The cache is read after the listing: a balancer listed was made for a Service created before it.
    const byUID = servicesByUID(services.lister.list());
    const malformed: string[] = [];
    const orphaned = { 'service-gone': [] as string[], 'not-wanted': [] as string[] };
    const records = new Map<string, OwnedLoadBalancer>();
    const orphans: { name: string; uid: string; state: OrphanState }[] = [];
    for (const entry of entries) {
      const state = classify(entry, byUID, this.#o.loadBalancerClass);
      if (isMalformedLoadBalancerRecord(entry) || state === 'malformed') {
        malformed.push(entry.name);
        if (!this.#malformedLogged.has(entry.name))
          this.#log.warn('Skipping load balancer: its Service record cannot be read; it is never deleted', {
            loadBalancer: entry.name,
            problem: recordProblem(entry) ?? 'malformed',
          });
        continue;
      }
      if (state !== 'service-gone' && state !== 'not-wanted') continue;
      orphaned[state].push(entry.name);
      records.set(entry.name, entry);
      orphans.push({ name: entry.name, uid: entry.service.uid, state });
    }
    this.#metrics.orphaned.set({ state: 'service-gone' }, orphaned['service-gone'].length);
    this.#metrics.orphaned.set({ state: 'not-wanted' }, orphaned['not-wanted'].length);
    this.#metrics.malformed.set(malformed.length);
    const result = {
      complete: true,
      listed: entries.length,
      malformed,
      orphaned,
      wouldDelete: [] as string[],
      deleted: [] as string[],
      kept: [] as string[],
    };
    for (const due of this.#sightings.observe(orphans, this.#now())) {
      signal.throwIfAborted();
      await this.#decide(due, records.get(due.name)!, result, signal);
    }
    const newlyMalformed = malformed.filter((name) => !this.#malformedLogged.has(name)).length;
    this.#malformedLogged = new Set(malformed);
    if (orphans.length > 0 || newlyMalformed > 0) {
      this.#log.info('Orphaned load-balancer pass', {
        listed: entries.length,
        serviceGone: orphaned['service-gone'].length,
        notWanted: orphaned['not-wanted'].length,
        malformed: malformed.length,
        deleted: result.deleted.length,
      });
    }
    return result;
  }

  async #decide(
    due: DueOrphan,
    record: OwnedLoadBalancer,
    result: { wouldDelete: string[]; deleted: string[]; kept: string[] },
    signal: AbortSignal,
  ): Promise<void> {
    const fields = { loadBalancer: due.name, service: recordedKey(record.service), uid: record.service.uid };
    const since = `${Math.round((this.#now() - due.firstSeenMs) / 1000)} s`;
    if (due.state === 'not-wanted') {
      result.kept.push(due.name);
      if (due.decided) return;
      this.#sightings.markDecided(due.name);
      this.#log.warn('Load balancer is no longer wanted by its Service, which still exists; not deleting it', fields);
      this.#event(
        record,
        'Warning',
        EVENT_ORPHANED_LOAD_BALANCER_KEPT,
        `Load balancer ${due.name} is no longer wanted by this Service (type or loadBalancerClass changed) for ${since}; service-lb-gc-controller does not delete it while the Service exists`,
      );
      return;
    }
    if (this.#o.config.mode === 'dry-run') {
      result.wouldDelete.push(due.name);
      if (due.decided) return;
      this.#sightings.markDecided(due.name);
      this.#log.warn(
        'Orphaned load balancer: its Service is gone; dry run, not deleting (--lb-gc-mode=dry-run)',
        fields,
      );
      this.#event(
        record,
        'Warning',
        EVENT_ORPHANED_LOAD_BALANCER,
        `Load balancer ${due.name} has had no Service with UID ${record.service.uid} for ${since}; --lb-gc-mode=delete would delete it`,
      );
      return;
    }
    let live: V1Service | undefined;
    try {
      live = await this.#readService(record.service.namespace, record.service.name, signal);
    } catch (err) {
      signal.throwIfAborted();
      result.kept.push(due.name);
      this.#log.error(err, 'Cannot read the Service before deleting its orphaned load balancer; not deleting', fields);
      return;
    }
    if (live?.metadata?.uid === record.service.uid) {
      result.kept.push(due.name);
      this.#log.info('The Service of the load balancer exists (the cache was behind); not deleting', fields);
      return;
    }
    try {
      await this.#deleteInGroup(serviceFromRecord(record.service), signal);
    } catch (err) {
      signal.throwIfAborted();
      result.kept.push(due.name);
      this.#log.error(err, 'Deleting orphaned load balancer failed; the next pass tries again', fields);
      this.#event(
        record,
        'Warning',
        EVENT_DELETE_ORPHANED_LOAD_BALANCER_FAILED,
        `Deleting orphaned load balancer ${due.name} failed: ${(err as Error)?.message ?? String(err)}`,
      );
      return;
    }
    this.#sightings.forget(due.name);
    this.#metrics.deleted.inc();
    result.deleted.push(due.name);
    this.#log.info('Deleted orphaned load balancer', fields);
    this.#event(
      record,
      'Normal',
      EVENT_DELETED_ORPHANED_LOAD_BALANCER,
      `Deleted orphaned load balancer ${due.name}: no Service with UID ${record.service.uid} for ${since}`,
    );
  }

  /** Events go to the recorded Service (namespace, name, UID), whether it still exists or not. */
  #event(record: OwnedLoadBalancer, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const { namespace, name, uid } = record.service;
    const ref: EventObject = { apiVersion: 'v1', kind: 'Service', namespace, name, uid };
    this.#o.recorder.event(ref, type, reason, message);
  }
}
