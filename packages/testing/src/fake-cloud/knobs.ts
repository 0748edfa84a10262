/**
 * The settable state of {@link FakeCloud} that mirrors upstream `fake.Cloud`'s exported fields,
 * as camelCase TypeScript (see upstream `k8s.io/cloud-provider fake/fake.go`). Every field is public and may be changed at any time.
 */
import type { InstanceMetadata, Zone } from '@ccm-kit/cloud-provider';
import type { V1Node, V1NodeAddress, V1Service, V1ServicePort } from '@kubernetes/client-node';
import type { FakeRoute } from './routes.js';

/** One `ensureLoadBalancer` or `updateLoadBalancer` call (upstream `UpdateBalancerCall`). */
export interface UpdateBalancerCall {
  /** The service passed in (the caller's object, not a copy). */
  readonly service: V1Service;
  /** A copy of the node list passed in. */
  readonly hosts: V1Node[];
}

/** A load balancer stored by a successful `ensureLoadBalancer` (upstream `fake.Balancer`). */
export interface FakeBalancer {
  /** `defaultLoadBalancerName(service)`. */
  name: string;
  /** `zone.region` at the time of the call. */
  region: string;
  /** `service.spec.loadBalancerIP`, `''` when unset. */
  loadBalancerIP: string;
  /** Copies of `service.spec.ports`. */
  ports: V1ServicePort[];
  /** A copy of the node list. */
  hosts: V1Node[];
  /**
   * Beyond upstream: the cluster and the Service identity recorded when `ensureLoadBalancer` made it, which
   * `listLoadBalancers` reports. A balancer stored without them (by a test) is listed as malformed.
   */
  clusterName?: string;
  /** The Service `ensureLoadBalancer` made it for (namespace, name, uid). */
  service?: { namespace: string; name: string; uid: string };
}

/** Called after an ensure/update call is recorded; awaited, one at a time per list (see {@link FakeCloud}). */
export type BalancerCallCallback = (call: UpdateBalancerCall) => void | Promise<void>;

/** Replaces `instanceMetadata` entirely (upstream `OverrideInstanceMetadata`); records no call. */
export type InstanceMetadataOverride = (
  node: V1Node,
  signal?: AbortSignal,
) => InstanceMetadata | undefined | Promise<InstanceMetadata | undefined>;

/** The upstream knobs of {@link FakeCloud}; all are optional in `FakeCloudOptions`. */
export interface FakeCloudKnobs {
  /** `instances()` returns `undefined` (upstream `DisableInstances`). Default false. */
  disableInstances: boolean;
  /** `routes()` returns `undefined`. Default false. */
  disableRoutes: boolean;
  /** `loadBalancer()` returns `undefined`. Default false. */
  disableLoadBalancers: boolean;
  /** `zones()` returns `undefined`. Default false. */
  disableZones: boolean;
  /** `clusters()` returns `undefined`. Default false. */
  disableClusters: boolean;
  /** `instancesV2()` returns the fake; otherwise `undefined`. Default **false**, as upstream. */
  enableInstancesV2: boolean;

  /** Whether `getLoadBalancer` finds the load balancer (upstream `Exists`). Default false. */
  exists: boolean;
  /**
   * The shared error thrown by most methods (upstream `Err`). The fake sets it itself after a
   * route create/delete conflict, and it stays set (sticky) until the test clears it.
   */
  err: Error | undefined;
  /** Answer of `instanceExistsByProviderID`/`instanceExists` for unregistered instances. Default false. */
  existsByProviderID: boolean;
  /** Error of `instanceExistsByProviderID`/`instanceExists` for unregistered instances. */
  errByProviderID: Error | undefined;
  /** Answer of `instanceShutdownByProviderID`/`instanceShutdown` for unregistered instances. Default false. */
  nodeShutdown: boolean;
  /** Error of `instanceShutdownByProviderID`/`instanceShutdown` for unregistered instances. */
  errShutdownByProviderID: Error | undefined;
  /**
   * Error thrown by `instanceMetadata` for unregistered instances. Upstream returns the metadata
   * alongside the error; a thrown error cannot carry a value, so the metadata is dropped. The
   * controllers ignore metadata returned with an error, so their behaviour is the same.
   */
  metadataErr: Error | undefined;
  /** Addresses answered by `nodeAddresses*` and `instanceMetadata` for unregistered instances (upstream `Addresses`). */
  addresses: V1NodeAddress[];
  /** `instanceID(nodeName)` answers (upstream `ExtID`); a missing name answers `''` with no error. */
  extID: Record<string, string>;
  /** `instanceID(nodeName)` errors (upstream `ExtIDErr`); checked before {@link extID}. */
  extIDErr: Record<string, Error>;
  /**
   * Instance types (upstream `InstanceTypes`): `instanceType(name)` looks up the node name, while
   * `instanceTypeByProviderID(id)` and `instanceMetadata(node)` look up the **providerID** string.
   */
  instanceTypes: Record<string, string>;
  /** `instanceMetadata(node).providerID`, keyed by node name (upstream `ProviderID`); `''` when missing. */
  providerID: Record<string, string>;
  /** The zone answered by the zone methods and `instanceMetadata`; its region is also the balancers' region. */
  zone: Zone;
  /** `instanceMetadata(node).additionalLabels`. */
  additionalLabels: Record<string, string> | undefined;
  /** When set, replaces `instanceMetadata` entirely and records no call. */
  overrideInstanceMetadata: InstanceMetadataOverride | undefined;
  /** `providerName()`; `''` means `'fake'`. */
  provider: string;
  /**
   * The ingress IP of load-balancer statuses. When unset the fake renders `''` (upstream Go renders
   * a nil IP as `"<nil>"`; no test depends on that string).
   */
  externalIP: string | undefined;
  /** The ingress `ipMode` returned by `ensureLoadBalancer` (`VIP` or `Proxy`); omitted when unset. */
  balancerIPMode: string | undefined;
  /** Run after each `ensureLoadBalancer` call is added to `ensureCalls`. */
  ensureCallCb: BalancerCallCallback | undefined;
  /** Run after each `updateLoadBalancer` call is added to `updateCalls`. */
  updateCallCb: BalancerCallCallback | undefined;
  /** The route store, keyed by route name. Created empty (upstream needs the test to create it). */
  routeMap: Map<string, FakeRoute>;
  /** Delay, in milliseconds, at the start of every recorded call name (upstream `RequestDelay`). Default 0. */
  requestDelayMs: number;
  /** `listClusters()` answer. */
  clusterList: string[];
  /** `master()` answer. */
  masterName: string;
  /** `getLabelsForVolume(pv)` answers, keyed by PV name. */
  volumeLabelMap: Record<string, Record<string, string>>;
  /** Machine names listed by `list(filter)`. */
  machines: string[];
}

/** Runtime list of the knob names (for validating `FakeCloudOptions`). */
export const KNOB_NAMES: readonly (keyof FakeCloudKnobs)[] = [
  'disableInstances',
  'disableRoutes',
  'disableLoadBalancers',
  'disableZones',
  'disableClusters',
  'enableInstancesV2',
  'exists',
  'err',
  'existsByProviderID',
  'errByProviderID',
  'nodeShutdown',
  'errShutdownByProviderID',
  'metadataErr',
  'addresses',
  'extID',
  'extIDErr',
  'instanceTypes',
  'providerID',
  'zone',
  'additionalLabels',
  'overrideInstanceMetadata',
  'provider',
  'externalIP',
  'balancerIPMode',
  'ensureCallCb',
  'updateCallCb',
  'routeMap',
  'requestDelayMs',
  'clusterList',
  'masterName',
  'volumeLabelMap',
  'machines',
];
