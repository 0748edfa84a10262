/**
 * How a node sync hands out its host updates with load-balancer groups (docs/decisions/0207): the Services of one
 * group as one batch, updated one after another; every Service in no group as a batch of its own, as without
 * groups. The batches keep the order in which their first Service came.
 */
import type { V1Service } from '@kubernetes/client-node';

/** Services updated one after another, holding `group` (none: a single Service in no group). */
export interface HostUpdateBatch {
  group: string | undefined;
  services: V1Service[];
}

/**
 * Splits the node sync's Services into batches.
 * @param groupOf - the group of a Service, `undefined` for none; when it throws, the Service goes to `failed`.
 * @returns the batches, and the Services whose group could not be read (not updated; retried by the caller).
 */
export function hostUpdateBatches(
  services: readonly (V1Service | undefined)[],
  groupOf: (svc: V1Service) => string | undefined,
): { batches: HostUpdateBatch[]; failed: { service: V1Service; err: unknown }[] } {
  const batches: HostUpdateBatch[] = [];
  const byGroup = new Map<string, HostUpdateBatch>();
  const failed: { service: V1Service; err: unknown }[] = [];
  for (const service of services) {
    if (service === undefined) continue;
    let group: string | undefined;
    try {
      group = groupOf(service);
    } catch (err) {
      failed.push({ service, err });
      continue;
    }
    if (group === undefined) {
      batches.push({ group, services: [service] });
      continue;
    }
    let batch = byGroup.get(group);
    if (batch === undefined) {
      batch = { group, services: [] };
      byGroup.set(group, batch);
      batches.push(batch);
    }
    batch.services.push(service);
  }
  return { batches, failed };
}
