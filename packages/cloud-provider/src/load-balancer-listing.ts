/**
 * The shapes of the optional `LoadBalancer.listLoadBalancers` method: the balancers a provider made for this
 * cluster, each with the Service identity it recorded on the balancer (for example as tags or labels). No
 * upstream counterpart: `k8s.io/cloud-provider`'s `LoadBalancer` cannot list. `service-lb-gc-controller` uses it to
 * find balancers whose Service is gone (docs/controllers/service-lb-gc-controller.md).
 */

/** The Service a provider recorded on a load balancer when `ensureLoadBalancer` made it. */
export interface RecordedService {
  /** `metadata.namespace` of the Service. */
  readonly namespace: string;
  /** `metadata.name` of the Service. */
  readonly name: string;
  /** `metadata.uid` of the Service: a Service re-created under the same name has another UID. */
  readonly uid: string;
}

/** A load balancer of this cluster whose record names its Service. */
export interface OwnedLoadBalancer {
  /** The provider's name (or ID) of the load balancer, as in its logs and console. */
  readonly name: string;
  /** The Service recorded on it. */
  readonly service: RecordedService;
  /** Absent on a readable record; tells it from a {@link MalformedLoadBalancerRecord}. */
  readonly malformed?: never;
}

/**
 * A load balancer of this cluster whose record cannot be read (a tag missing, empty or unparsable). A provider
 * reports it this way instead of leaving it out, so that it is logged by name; it is never deleted.
 */
export interface MalformedLoadBalancerRecord {
  /** The provider's name (or ID) of the load balancer. */
  readonly name: string;
  /** What is wrong with the record, for the log line (for example `tag service-uid is missing`). */
  readonly malformed: string;
  /** Absent on a malformed record; tells it from an {@link OwnedLoadBalancer}. */
  readonly service?: never;
}

/** One entry of a listing page. */
export type ListedLoadBalancer = OwnedLoadBalancer | MalformedLoadBalancerRecord;

/** Options of one `listLoadBalancers` call. */
export interface ListLoadBalancersOptions {
  /** Aborts the call (the manager stops or loses the lease); the provider rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** The `nextPageToken` of the previous page; absent for the first page. */
  readonly pageToken?: string;
}

/** One page of a listing. */
export interface LoadBalancerListPage {
  /** The balancers on this page, malformed records included. */
  readonly loadBalancers: readonly ListedLoadBalancer[];
  /** Token of the next page; absent (or empty) on the last page. */
  readonly nextPageToken?: string;
}

/** True when `entry` is a {@link MalformedLoadBalancerRecord}. */
export function isMalformedLoadBalancerRecord(entry: ListedLoadBalancer): entry is MalformedLoadBalancerRecord {
  return typeof entry.malformed === 'string';
}
