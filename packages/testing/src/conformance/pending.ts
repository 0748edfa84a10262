/**
 * Pending checks (`pendingNotImplemented`): a check during which the provider threw `NotImplementedError`
 * (a stub) is reported as pending — whether the check then failed, or passed because it expected an error
 * anyway (an outage or abort check) — so a stub never counts as a pass.
 */
import { findError, NotImplementedError } from '@ccm-kit/cloud-provider';
import type { ProviderConformanceOptions, ProviderFixture } from './options.js';
import type { ConformanceCheck } from './plan.js';

/** Wraps the provider's methods (and the facets its accessors return) to notice stubs. */
function observe<T extends object>(target: T, seen: (err: NotImplementedError) => void): T {
  const note = (err: unknown) => {
    const stub = findError(err, NotImplementedError);
    if (stub) seen(stub);
  };
  return new Proxy(target, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        let result: unknown;
        try {
          // The real object as `this`: classes with #private fields reject a Proxy.
          result = Reflect.apply(value, obj, args);
        } catch (err) {
          note(err);
          throw err;
        }
        if (result instanceof Promise) return result.catch((err: unknown) => (note(err), Promise.reject(err)));
        // A facet accessor (instancesV2(), loadBalancer(), …): observe the facet too.
        return result !== null && typeof result === 'object' && prop !== 'initialize' ? observe(result, seen) : result;
      };
    },
  });
}

/** What {@link trackStubs} returns: the options to plan with, and a runner for each check. */
export interface StubTracker<F extends ProviderFixture> {
  /** The options to plan with: the fixture's factory wrapped so that stub calls are recorded. */
  options: ProviderConformanceOptions<F>;
  /**
   * Runs `check`; when the provider threw `NotImplementedError` during it, calls `skip` with
   * `pending: <the stub's message>` (vitest's `ctx.skip` throws, so nothing after it runs).
   * @throws what the check threw, when no stub was hit.
   */
  run(check: Pick<ConformanceCheck, 'run'>, skip: (note: string) => void): Promise<void>;
}

/** Observes every fixture's cloud that `options.setup` builds, for {@link StubTracker.run}. */
export function trackStubs<F extends ProviderFixture>(options: ProviderConformanceOptions<F>): StubTracker<F> {
  let stub: NotImplementedError | undefined;
  const seen = (err: NotImplementedError) => {
    stub ??= err;
  };
  return {
    options: {
      ...options,
      setup: async () => {
        const fixture = await options.setup();
        return { ...fixture, cloud: observe(fixture.cloud, seen) };
      },
    },
    async run(check, skip) {
      stub = undefined;
      let failure: unknown;
      try {
        await check.run();
      } catch (err) {
        failure = err;
      }
      // Assigned by the observed calls during check.run(); TypeScript cannot see that.
      const hit = stub as NotImplementedError | undefined;
      if (hit) skip(`pending: ${hit.message}`);
      else if (failure !== undefined) throw failure;
    },
  };
}
