/**
 * The provider as the leader-elected controllers see it: every call of a facet (every facet of
 * `@ccm-kit/cloud-provider`'s `FACETS`, each method but those marked `local`) first checks the lease fence and, while the replica cannot prove it
 * still holds the lease, fails with `LeaseFencedError` instead of reaching the cloud
 * (docs/decisions/0050-lease-fencing.md). The error is an ordinary failure for the controllers: the object is
 * requeued, and no deletion follows from it (only a `false`/NotFound answer can lead to one).
 *
 * With a cloud budget (`--cloud-api-qps`), each facet call first takes a token in its lane (`withCloudLane`), and
 * the fence is checked after the wait, right before the call (docs/cloud-call-guard.md). With tracing on, each
 * facet call is a span (`LoadBalancer.ensureLoadBalancer`) covering the wait, the fence and the call
 * (docs/tracing.md).
 */
import { type CloudProvider, FACET_NAMES, FACETS, type FacetMethodKind, type FacetName } from '@ccm-kit/cloud-provider';
import type { CloudBudget } from '@ccm-kit/runtime/budget';
import type { ClientFactory } from '@ccm-kit/runtime/client';
import type { LeaseFence } from '@ccm-kit/runtime/leader-election';
import {
  checkFence,
  clientFactoryTransport,
  leaseWriteGuard,
  setProcessLeaseFence,
  traceCloudCall,
} from '@ccm-kit/runtime/internal';
import type { Deposition } from './deposition.js';

/** Whether `prop` is a method of the facet that computes locally and never calls the cloud. */
function isLocal(facetName: FacetName, prop: string): boolean {
  return (FACETS[facetName].methods as Readonly<Record<string, FacetMethodKind>>)[prop] === 'local';
}

/**
 * Wraps `cloud` so that facet calls are refused while `fence()` is fenced. Everything else (`initialize`,
 * `setInformers`, `providerName`, ...) passes through to `cloud` unchanged.
 * @param fence the current fence; undefined (no leader election) refuses nothing.
 * @param budget the process' cloud budget; undefined (no `--cloud-api-qps`) limits nothing.
 */
export function fencedCloud(
  cloud: CloudProvider,
  fence: () => LeaseFence | undefined,
  budget?: CloudBudget,
): CloudProvider {
  // Per facet name: one provider object may serve several facets (FakeCloud returns itself for each).
  const wrapped = new Map<string, WeakMap<object, object>>(FACET_NAMES.map((f) => [f, new WeakMap()]));
  const wrapFacet = (facetName: FacetName, facet: object): object => {
    const cache = wrapped.get(facetName)!;
    let w = cache.get(facet);
    if (!w) {
      w = new Proxy(facet, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver) as unknown;
          if (typeof v !== 'function' || typeof prop !== 'string' || isLocal(facetName, prop)) return v;
          const call = (args: unknown[]) => {
            try {
              checkFence(fence(), `cloud call ${facetName}.${prop}`);
            } catch (err) {
              return Promise.reject(err);
            }
            return (v as (...a: unknown[]) => unknown).apply(target, args);
          };
          const span = `${FACETS[facetName].interfaceName}.${prop}`;
          if (!budget) return (...args: unknown[]) => traceCloudCall(span, () => call(args));
          const operation = `${facetName}.${prop}`;
          // Facet methods take the caller's signal last: a call waiting for a token stops waiting when it aborts.
          // The budget publishes its charge inside the span, which so records the lane and the wait.
          return (...args: unknown[]) =>
            traceCloudCall(span, () =>
              budget.run(
                operation,
                () => call(args),
                args.findLast((a) => a instanceof AbortSignal),
              ),
            );
        },
      });
      cache.set(facet, w);
    }
    return w;
  };
  return new Proxy(cloud, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      if (!(FACET_NAMES as readonly (string | symbol)[]).includes(prop))
        return (v as (...a: unknown[]) => unknown).bind(target);
      return () => {
        const facet = (v as () => object | undefined).call(target);
        return facet ? wrapFacet(prop as FacetName, facet) : facet;
      };
    },
  });
}

/**
 * Fences the leader's work in one place: installs the lease write guard on the given client factories'
 * transports (API writes other than the Lease and Events are refused while fenced; Events too once deposed),
 * installs the process' lease fence for the provider's own HTTP client (`leaseFenceInterceptor`,
 * `leaseFenceSignal`), and returns the fenced provider for the controllers. Every check goes through
 * `deposition.fence`, so the first refusal while leading deposes the leader (`deposition.ts`).
 */
export function fenceLeaderWork(
  cloud: CloudProvider,
  factories: readonly ClientFactory[],
  deposition: Deposition,
  budget?: CloudBudget,
): CloudProvider {
  const fence = () => deposition.fence;
  const guard = leaseWriteGuard(fence, { refuseEvents: () => deposition.deposed });
  for (const f of factories) clientFactoryTransport(f).setWriteGuard(guard);
  setProcessLeaseFence(deposition.fence);
  return fencedCloud(cloud, fence, budget);
}
