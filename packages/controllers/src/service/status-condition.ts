/**
 * The Service status condition the service controller keeps with `--service-status-conditions` (off by default;
 * docs/decisions/0208-service-status-condition.md): one condition of type {@link LOAD_BALANCER_CONDITION_TYPE},
 * KEP-4631's `LoadBalancerServing` under ccm-kit's prefix, with KEP-4631's reasons where it has one.
 */
import type { V1Condition, V1Service } from '@kubernetes/client-node';
import type { UnsupportedServiceField } from './capability-check.js';

/** The condition type: KEP-4631's `LoadBalancerServing`, prefixed so that it can never clash with a future upstream type. */
export const LOAD_BALANCER_CONDITION_TYPE = 'ccm-kit.io/LoadBalancerServing';

/** `True`: the load balancer is ensured and its ingress written (KEP-4631 `Serving`). */
export const REASON_SERVING = 'Serving';
/** `False`: the provider asked to retry later (`RetryError`), typically while provisioning (KEP-4631 `Provisioning`). */
export const REASON_PROVISIONING = 'Provisioning';
/** `False`: the sync failed (KEP-4631 `Infrastructure`: a problem of the cloud, explained in the message). */
export const REASON_INFRASTRUCTURE = 'Infrastructure';
/** `False`: refused for more than one unsupported field (KEP-4631 `Multiple`). */
export const REASON_MULTIPLE = 'Multiple';

/** What the condition should say: its status, reason and message. */
export interface LoadBalancerConditionState {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/**
 * The reason for a refused field, as KEP-4631 names its reasons: the Service field name followed by `NotSupported`
 * (`spec.loadBalancerSourceRanges` and its annotation → `LoadBalancerSourceRangesNotSupported`,
 * `spec.ports[1].protocol` → `PortsNotSupported`, `spec.ipFamilies[0]` → `IPFamiliesNotSupported`).
 */
export function notSupportedReason(field: string): string {
  const name = field.startsWith('metadata.annotations[') ? 'loadBalancerSourceRanges' : field.replace(/^spec\./, '');
  const top = name.split(/[.[]/)[0]!;
  // Go's field names: `IPFamilies`, `IPFamilyPolicy`.
  const goName = top.startsWith('ip') ? `IP${top.slice(2)}` : `${top.charAt(0).toUpperCase()}${top.slice(1)}`;
  return `${goName}NotSupported`;
}

/** The reason for a Service refused by the capability declaration: one field's, or `Multiple`. */
export function refusedReason(fields: readonly UnsupportedServiceField[]): string {
  const reasons = [...new Set(fields.filter((f) => f.refuse).map((f) => notSupportedReason(f.field)))];
  return reasons.length === 1 ? reasons[0]! : REASON_MULTIPLE;
}

/**
 * `svc`'s conditions with the load-balancer condition set to `state` (or removed, for `undefined`); the others kept
 * in place. `lastTransitionTime` changes only when the status does; `observedGeneration` is the Service's
 * `metadata.generation`.
 * @returns the new list, or `undefined` when it equals the current one (nothing to write).
 */
export function withLoadBalancerCondition(
  svc: V1Service,
  state: LoadBalancerConditionState | undefined,
  now: Date,
): V1Condition[] | undefined {
  const current = svc.status?.conditions ?? [];
  const i = current.findIndex((c) => c.type === LOAD_BALANCER_CONDITION_TYPE);
  const old = i >= 0 ? current[i] : undefined;
  if (state === undefined) return old === undefined ? undefined : current.filter((_, j) => j !== i);
  const generation = svc.metadata?.generation;
  if (
    old !== undefined &&
    old.status === state.status &&
    old.reason === state.reason &&
    old.message === state.message &&
    old.observedGeneration === generation
  ) {
    return undefined;
  }
  const next: V1Condition = {
    type: LOAD_BALANCER_CONDITION_TYPE,
    status: state.status,
    reason: state.reason,
    // The API server requires a message of at most 32768 characters.
    message: state.message.length > 32_768 ? `${state.message.slice(0, 32_765)}...` : state.message,
    lastTransitionTime: old !== undefined && old.status === state.status ? old.lastTransitionTime : now,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
  return i >= 0 ? current.map((c, j) => (j === i ? next : c)) : [...current, next];
}
