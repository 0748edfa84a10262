/**
 * Whether a listed load balancer is orphaned, from the Services in the informer's cache. Uses the service
 * controller's own ownership predicate (`wantsLoadBalancer` with the `loadBalancerClass` option,
 * docs/decisions/0203-service-load-balancer-class-ownership.md), so the two controllers agree on which
 * Services are this CCM's.
 */
import { isMalformedLoadBalancerRecord, type ListedLoadBalancer, type RecordedService } from '@ccm-kit/cloud-provider';
import type { V1Service } from '@kubernetes/client-node';
import { wantsLoadBalancer } from '../service/service-ownership.js';

/**
 * - `malformed`: the provider could not read the balancer's record; logged, never deleted.
 * - `in-use`: a Service with the recorded UID exists and wants a load balancer from this CCM (in any state,
 *   being deleted included).
 * - `service-gone`: no Service has the recorded UID (deleted, or re-created under the same name with another
 *   UID). Deleted in `delete` mode after the grace period.
 * - `not-wanted`: the Service with the recorded UID exists but no longer wants a load balancer from this CCM
 *   (another type, or another `loadBalancerClass`). Reported, never deleted: the Service exists, so its
 *   cleanup is the service controller's or an operator's (docs/decisions/0210-orphaned-load-balancer-collection.md).
 */
export type OrphanState = 'malformed' | 'in-use' | 'service-gone' | 'not-wanted';

/** The Services of the informer's cache by UID. */
export function servicesByUID(services: readonly V1Service[]): Map<string, V1Service> {
  const out = new Map<string, V1Service>();
  for (const s of services) {
    const uid = s.metadata?.uid;
    if (uid) out.set(uid, s);
  }
  return out;
}

/**
 * Why the record of `entry` cannot be used, or `undefined` when it can: reported as malformed by the provider,
 * or a recorded namespace, name or UID that is missing or empty (a provider bug must not read as "Service gone").
 */
export function recordProblem(entry: ListedLoadBalancer): string | undefined {
  if (isMalformedLoadBalancerRecord(entry)) return entry.malformed;
  const s = entry.service as Partial<RecordedService> | undefined;
  const missing = (['namespace', 'name', 'uid'] as const).filter((k) => typeof s?.[k] !== 'string' || s[k] === '');
  return missing.length > 0 ? `the recorded Service has no ${missing.join(', ')}` : undefined;
}

/** The state of one listed balancer. `loadBalancerClass` is the service controller's option (undefined: upstream). */
export function classify(
  entry: ListedLoadBalancer,
  byUID: ReadonlyMap<string, V1Service>,
  loadBalancerClass: string | undefined,
): OrphanState {
  if (isMalformedLoadBalancerRecord(entry) || recordProblem(entry) !== undefined) return 'malformed';
  const service = byUID.get(entry.service.uid);
  if (service === undefined) return 'service-gone';
  return wantsLoadBalancer(service, loadBalancerClass) ? 'in-use' : 'not-wanted';
}

/** `namespace/name` of a recorded Service. */
export function recordedKey(service: RecordedService): string {
  return `${service.namespace}/${service.name}`;
}

/**
 * The Service handed to `ensureLoadBalancerDeleted`: what the listing recorded (namespace, name, uid) and type
 * `LoadBalancer`, so that the provider finds the balancer as it would for the real Service.
 */
export function serviceFromRecord(service: RecordedService): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: service.namespace, name: service.name, uid: service.uid },
    spec: { type: 'LoadBalancer' },
  };
}
