/**
 * Every method of every facet in `@ccm-kit/cloud-provider`'s `FACETS` reaches the cloud only through the lease
 * fence and the cloud budget of the provider the controllers get (`fencedCloud`; docs/decisions/0050-lease-fencing.md,
 * docs/cloud-call-guard.md). The provider here implements every facet of the list with recording methods, so a
 * facet added to the list without being fenced fails these tests.
 */
import { type CloudProvider, FACET_NAMES, FACETS, type FacetMethodKind, type FacetName } from '@ccm-kit/cloud-provider';
import { CloudBudget, onCloudBudgetCharge } from '@ccm-kit/runtime/budget';
import { isLeaseFencedError, type LeaseFence } from '@ccm-kit/runtime/leader-election';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { fencedCloud } from '../src/manager/fenced-cloud.js';

type Method = (...args: unknown[]) => unknown;

/** The methods of `facet` and what each does. */
const methodsOf = (facet: FacetName) =>
  Object.entries(FACETS[facet].methods as Readonly<Record<string, FacetMethodKind>>);

/** `[facet, method]` of every cloud call in the list. */
const cloudCalls: [FacetName, string][] = FACET_NAMES.flatMap((f) =>
  methodsOf(f)
    .filter(([, kind]) => kind === 'cloud')
    .map(([m]): [FacetName, string] => [f, m]),
);

/** `[facet, method]` of every local method in the list. */
const localCalls: [FacetName, string][] = FACET_NAMES.flatMap((f) =>
  methodsOf(f)
    .filter(([, kind]) => kind === 'local')
    .map(([m]): [FacetName, string] => [f, m]),
);

/** A provider implementing every facet of the list, each facet its own object, each method recording its call. */
function recordingProvider(): { cloud: CloudProvider; reached: string[] } {
  const reached: string[] = [];
  const provider: Record<string, unknown> = { providerName: () => 'recording', hasClusterID: () => true };
  for (const f of FACET_NAMES) {
    const facet: Record<string, Method> = {};
    for (const [m, kind] of methodsOf(f)) {
      facet[m] = () => {
        reached.push(`${f}.${m}`);
        return kind === 'local' ? 'local answer' : Promise.resolve(undefined);
      };
    }
    provider[f] = () => facet;
  }
  return { cloud: provider as unknown as CloudProvider, reached };
}

/** `cloud[facet]()[method](...args)`. */
function call(cloud: CloudProvider, facet: FacetName, method: string, ...args: unknown[]): unknown {
  const f = (cloud[facet] as unknown as () => Record<string, Method>)();
  return f[method]!(...args);
}

const deposed: LeaseFence = {
  isFenced: () => true,
  validForMs: () => 0,
  describe: () => 'kube-system/cloud-controller-manager',
};

describe('the facet list is fenced and budgeted', () => {
  let stopListening: (() => void) | undefined;
  afterEach(() => stopListening?.());

  it('lists cloud calls for every facet', () => {
    expect(FACET_NAMES.length).toBeGreaterThan(0);
    for (const f of FACET_NAMES) expect(cloudCalls.some(([facet]) => facet === f)).toBe(true);
  });

  it.each(cloudCalls)('deposed: %s.%s refuses without reaching the provider', async (facet, method) => {
    const { cloud, reached } = recordingProvider();
    const err = await Promise.resolve(
      call(
        fencedCloud(cloud, () => deposed),
        facet,
        method,
      ),
    ).catch((e: unknown) => e);
    expect(isLeaseFencedError(err)).toBe(true);
    expect((err as Error).message).toMatch(new RegExp(`^cloud call ${facet}\\.${method} refused`));
    expect(reached).toEqual([]);
  });

  it.each(cloudCalls)(
    'budget exhausted: %s.%s waits for a token and never reaches the provider',
    async (facet, method) => {
      const { cloud, reached } = recordingProvider();
      // One token, then one every 1,000 s: the first acquire takes it, every call after waits.
      const budget = new CloudBudget({ qps: 0.001, burst: 1, registry: new Registry() });
      await budget.acquire('drain');
      const ac = new AbortController();
      const pending = Promise.resolve(
        call(
          fencedCloud(cloud, () => undefined, budget),
          facet,
          method,
          ac.signal,
        ),
      );
      await new Promise((r) => setImmediate(r));
      expect(reached).toEqual([]);
      ac.abort();
      await expect(pending).rejects.toThrow();
      expect(reached).toEqual([]);
    },
  );

  it.each(cloudCalls)('budget: %s.%s is charged once, then reaches the provider', async (facet, method) => {
    const { cloud, reached } = recordingProvider();
    const budget = new CloudBudget({ qps: 1_000, burst: 1_000, registry: new Registry() });
    const charged: string[] = [];
    stopListening = onCloudBudgetCharge((c) => charged.push(c.operation));
    await call(
      fencedCloud(cloud, () => undefined, budget),
      facet,
      method,
    );
    expect(charged).toEqual([`${facet}.${method}`]);
    expect(reached).toEqual([`${facet}.${method}`]);
  });

  it.each(localCalls)('local: %s.%s answers while deposed, uncharged', (facet, method) => {
    const { cloud, reached } = recordingProvider();
    const budget = new CloudBudget({ qps: 0.001, burst: 1, registry: new Registry() });
    const charged: string[] = [];
    stopListening = onCloudBudgetCharge((c) => charged.push(c.operation));
    expect(
      call(
        fencedCloud(cloud, () => deposed, budget),
        facet,
        method,
      ),
    ).toBe('local answer');
    expect(reached).toEqual([`${facet}.${method}`]);
    expect(charged).toEqual([]);
  });
});
