/**
 * Traffic-policy predicates of Services.
 * Follows upstream `k8s.io/cloud-provider/service/helpers/helper.go` `RequestsOnlyLocalTraffic`,
 * `NeedsHealthCheck` and `GetServiceHealthCheckPathPort` (upstream `k8s.io/cloud-provider service/helpers/helper.go`).
 */
import type { V1Service } from '@kubernetes/client-node';

/** True when the type is `LoadBalancer` or `NodePort` and `externalTrafficPolicy` is `Local`. */
export function requestsOnlyLocalTraffic(service: Pick<V1Service, 'spec'>): boolean {
  const type = service.spec?.type;
  if (type !== 'LoadBalancer' && type !== 'NodePort') return false;
  return service.spec?.externalTrafficPolicy === 'Local';
}

/** True when the type is `LoadBalancer` and {@link requestsOnlyLocalTraffic}. */
export function needsHealthCheck(service: Pick<V1Service, 'spec'>): boolean {
  return service.spec?.type === 'LoadBalancer' && requestsOnlyLocalTraffic(service);
}

/**
 * The health-check path and node port: `{ path: '/healthz', port: spec.healthCheckNodePort }` when
 * {@link needsHealthCheck} and the port is non-zero, otherwise `{ path: '', port: 0 }`.
 */
export function getServiceHealthCheckPathPort(service: Pick<V1Service, 'spec'>): { path: string; port: number } {
  if (!needsHealthCheck(service)) return { path: '', port: 0 };
  const port = service.spec?.healthCheckNodePort ?? 0;
  if (port === 0) return { path: '', port: 0 };
  return { path: '/healthz', port };
}
