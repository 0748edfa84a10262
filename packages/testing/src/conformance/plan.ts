/**
 * Plans a conformance run: builds one fixture to learn which facets and fixture extras exist, then picks
 * the checks. Runner-agnostic: {@link describeProviderConformance} registers the plan with vitest, and any
 * other runner can call each check's `run()`.
 */
import { facetOf } from '@ccm-kit/cloud-provider';
import { capabilityChecks } from './capabilities.js';
import type { CheckSpec, ProviderProbe } from './check.js';
import { buildFixture, runWithFixture } from './harness.js';
import { instancesV2Checks } from './instances.js';
import { instancesBatchChecks } from './instances-batch.js';
import { instancesV1Checks, zonesChecks } from './instances-v1.js';
import { loadBalancerChecks } from './load-balancer.js';
import {
  CONFORMANCE_FACETS,
  type ConformanceFacet,
  type OutageFacet,
  type ProviderConformanceOptions,
  type ProviderFixture,
  resolveOptions,
} from './options.js';
import { providerChecks } from './provider.js';
import { routesChecks } from './routes.js';

/** One planned check. `run()` builds a fresh fixture, runs the check and tears the fixture down. */
export interface ConformanceCheck {
  /** `<facet>/<slug>`, for example `loadBalancer/delete`; also the prefix of its violation messages. */
  readonly id: string;
  /** The facet the check belongs to. */
  readonly facet: ConformanceFacet;
  /** What the check guarantees (the test name). */
  readonly title: string;
  /** Resolves when the provider conforms; rejects with a `ConformanceViolation` (or the setup error) otherwise. */
  run(): Promise<void>;
}

/** What a run covers, for the report. */
export interface ConformanceCoverage {
  /** The suite name (`options.name`). */
  readonly name: string;
  /** The provider's `providerName()`. */
  readonly providerName: string;
  /** Checked facets the provider implements (`provider` always). */
  readonly implemented: readonly ConformanceFacet[];
  /** Checked facets it does not implement: they get no checks at all. */
  readonly notImplemented: readonly ConformanceFacet[];
  /** `clusters()` returns a facet (no controller calls it; not checked). */
  readonly clusters: boolean;
  /** The facets with outage checks (empty without `breakCloud`). */
  readonly outage: readonly OutageFacet[];
  /** The fixture has a `stoppedNode`: the shutdown checks run. */
  readonly stoppedNode: boolean;
  /** The fixture has `listCloudLoadBalancers`: the leak and duplicate checks run. */
  readonly listsLoadBalancers: boolean;
  /** The LoadBalancer facet implements the optional `listLoadBalancers` (its checks run). */
  readonly listsOwnedLoadBalancers: boolean;
  /** The abort checks run (`options.abortSignals` is not `false`). */
  readonly abortSignals: boolean;
  /** The InstancesV2 facet has the batch read `listInstanceStates` (checked against the per-Node answers). */
  readonly batchReads: boolean;
  /** The LoadBalancer facet declares `capabilities` (each declared capability gets a check). */
  readonly capabilities: boolean;
  /** Number of checks per implemented facet. */
  readonly checks: Readonly<Partial<Record<ConformanceFacet, number>>>;
}

/** A planned run: its coverage and its checks, in order. */
export interface ConformancePlan {
  /** What the run covers, for the report. */
  readonly coverage: ConformanceCoverage;
  /** The checks, in the order they run. */
  readonly checks: readonly ConformanceCheck[];
}

async function probe<F extends ProviderFixture>(
  options: ProviderConformanceOptions<F>,
  resolved: ReturnType<typeof resolveOptions<F>>,
): Promise<ProviderProbe> {
  const built = await buildFixture(options, resolved.timeouts);
  try {
    const { fixture, facets } = built;
    const implemented = new Set(facets);
    // Zones has no outage check: a wrong zone during an outage deletes nothing.
    const outageFacets = (options.outageFacets ?? CONFORMANCE_FACETS).filter(
      (f): f is OutageFacet => f !== 'provider' && f !== 'zones' && implemented.has(f),
    );
    return {
      providerName: fixture.cloud.providerName(),
      facets: implemented,
      clusters: facetOf(fixture.cloud, 'clusters') !== undefined,
      outage: new Set(fixture.breakCloud ? outageFacets : []),
      stoppedNode: fixture.stoppedNode !== undefined,
      missingProviderID: !!fixture.missingNode?.spec?.providerID,
      listsLoadBalancers: fixture.listCloudLoadBalancers !== undefined,
      listsOwnedLoadBalancers: typeof facetOf(fixture.cloud, 'loadBalancer')?.listLoadBalancers === 'function',
      abortSignals: options.abortSignals !== false,
      batchReads: typeof facetOf(fixture.cloud, 'instancesV2')?.listInstanceStates === 'function',
      lbCapabilities: facetOf(fixture.cloud, 'loadBalancer')?.capabilities,
    };
  } finally {
    await built.release();
  }
}

function specsFor(p: ProviderProbe, declared: readonly ConformanceFacet[] | undefined): CheckSpec[] {
  const specs = providerChecks(p, declared);
  if (p.facets.has('instancesV2')) specs.push(...instancesV2Checks(p));
  if (p.facets.has('instancesV2') && p.batchReads) specs.push(...instancesBatchChecks(p));
  if (p.facets.has('instances')) specs.push(...instancesV1Checks(p));
  if (p.facets.has('zones')) specs.push(...zonesChecks(p));
  if (p.facets.has('loadBalancer')) specs.push(...loadBalancerChecks(p), ...capabilityChecks(p));
  if (p.facets.has('routes')) specs.push(...routesChecks(p));
  return specs;
}

/**
 * Validates the options, builds one fixture (then tears it down) to learn what the provider implements,
 * and returns the checks to run.
 * @throws TypeError/RangeError naming a bad option or fixture field; the error of `setup()`/`initialize`.
 */
export async function planProviderConformance<F extends ProviderFixture>(
  options: ProviderConformanceOptions<F>,
): Promise<ConformancePlan> {
  const resolved = resolveOptions(options);
  const p = await probe(options, resolved);
  const specs = specsFor(p, options.facets);
  const checks: ConformanceCheck[] = specs.map((spec) => ({
    id: spec.id,
    facet: spec.facet,
    title: spec.title,
    run: () =>
      runWithFixture(
        {
          id: spec.id,
          options,
          timeouts: resolved.timeouts,
          clusterName: resolved.clusterName,
          settle: spec.settle ?? false,
        },
        (ctx) => spec.run(ctx),
      ),
  }));
  const counts: Partial<Record<ConformanceFacet, number>> = {};
  for (const c of checks) counts[c.facet] = (counts[c.facet] ?? 0) + 1;
  const implemented = CONFORMANCE_FACETS.filter((f) => p.facets.has(f));
  return {
    checks,
    coverage: {
      name: options.name,
      providerName: p.providerName,
      implemented,
      notImplemented: CONFORMANCE_FACETS.filter((f) => !p.facets.has(f)),
      clusters: p.clusters,
      outage: [...p.outage],
      stoppedNode: p.stoppedNode,
      listsLoadBalancers: p.listsLoadBalancers,
      listsOwnedLoadBalancers: p.listsOwnedLoadBalancers,
      abortSignals: p.abortSignals,
      batchReads: p.batchReads,
      capabilities: p.lbCapabilities !== undefined,
      checks: counts,
    },
  };
}

/** A few lines saying what the run covers and what it does not (printed by the vitest suite). */
export function formatCoverage(c: ConformanceCoverage): string {
  const lines = [
    `provider conformance: ${c.name} (providerName ${JSON.stringify(c.providerName)})`,
    `  checked facets: ${c.implemented.map((f) => `${f} (${c.checks[f] ?? 0})`).join(', ')}`,
    `  not implemented (no checks): ${c.notImplemented.length ? c.notImplemented.join(', ') : 'none'}${c.clusters ? '; clusters is implemented but not checked' : ''}`,
    `  cloud outage (breakCloud): ${c.outage.length ? c.outage.join(', ') : 'not covered (no breakCloud in the fixture)'}`,
    `  stopped machine (stoppedNode): ${c.stoppedNode ? 'covered' : 'not covered'}`,
    `  cloud-side leak/duplicate count (listCloudLoadBalancers): ${c.implemented.includes('loadBalancer') ? (c.listsLoadBalancers ? 'covered' : 'not covered') : 'n/a'}`,
    `  load-balancer listing (listLoadBalancers): ${c.implemented.includes('loadBalancer') ? (c.listsOwnedLoadBalancers ? 'covered' : 'not implemented') : 'n/a'}`,
    `  AbortSignal: ${c.abortSignals ? 'covered' : 'not covered (abortSignals: false)'}`,
    `  batch read (listInstanceStates): ${c.implemented.includes('instancesV2') ? (c.batchReads ? 'covered' : 'not implemented') : 'n/a'}`,
    `  load-balancer capabilities: ${c.implemented.includes('loadBalancer') ? (c.capabilities ? 'declared, each declared capability checked' : 'not declared (nothing to check)') : 'n/a'}`,
  ];
  return lines.join('\n');
}
