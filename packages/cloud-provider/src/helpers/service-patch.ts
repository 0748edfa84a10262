/**
 * Patching a Service's metadata and status through the status subresource.
 * Follows upstream `k8s.io/cloud-provider/service/helpers/helper.go` `PatchService` and `getPatchBytes`
 * (upstream `k8s.io/cloud-provider service/helpers/helper.go`): a two-way strategic merge patch of `old` against `new` with `new.spec` replaced by
 * `old.spec`, so spec changes are never sent. Unlike upstream, `newService` is not modified.
 */
import type { V1Service } from '@kubernetes/client-node';
import type { ServiceStatusClient } from './clients.js';
import { createTwoWayMergePatch, type JsonObject } from './strategic-merge-patch.js';

function comparable(service: V1Service, spec: V1Service['spec']): V1Service {
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = service;
  return { ...rest, spec };
}

/**
 * The strategic merge patch from `oldService` to `newService`, ignoring `spec` (and `apiVersion`/`kind`).
 * Adding a finalizer to `["foo"]` gives exactly
 * `{"metadata":{"$setElementOrder/finalizers":["foo","bar"],"finalizers":["bar"]}}`; a status change gives
 * `{"status":{"loadBalancer":{"ingress":[…]}}}` (`"ingress":null` when cleared). `{}` when nothing changed.
 */
export function servicePatch(oldService: V1Service, newService: V1Service): JsonObject {
  return createTwoWayMergePatch(comparable(oldService, oldService.spec), comparable(newService, oldService.spec));
}

/**
 * Sends {@link servicePatch} as a strategic merge patch to `services/<namespace>/<name>/status` (upstream
 * `PatchService`; always sent, even when empty) and returns the server's object.
 * @throws Error when `oldService` has no `metadata.name` or `metadata.namespace`; otherwise the client's error unchanged.
 */
export async function patchService(
  client: ServiceStatusClient,
  oldService: V1Service,
  newService: V1Service,
): Promise<V1Service> {
  const name = oldService.metadata?.name;
  const namespace = oldService.metadata?.namespace;
  if (!name) throw new Error('patchService: oldService.metadata.name is required');
  if (!namespace) throw new Error('patchService: oldService.metadata.namespace is required');
  return client.patchServiceStatus(namespace, name, servicePatch(oldService, newService));
}
