/**
 * Builds fixtures and runs one check: `setup()`, fixture validation, `initialize`, the check, then
 * healing, aborting the initialize signal and `teardown`, whatever happened.
 */
import type { ControllerClientBuilder } from '@ccm-kit/cloud-provider';
import { CheckContext } from './context.js';
import { implementedFacets } from './facets.js';
import type { ConformanceFacet, ProviderConformanceOptions, ProviderFixture, ResolvedTimeouts } from './options.js';
import { sleep, within } from './retry.js';
import { ConformanceViolation, describeError } from './violation.js';

/** A client builder that throws, naming the fixture field to set, when the provider uses it. */
export function missingClientBuilder(suite: string): ControllerClientBuilder {
  const refuse = (): never => {
    throw new Error(
      `describeProviderConformance(${suite}): the provider's initialize() asked for a Kubernetes client; return a clientBuilder from setup() (or set initialize: false)`,
    );
  };
  return { config: refuse, client: refuse };
}

function isNodeLike(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const name = (value as { metadata?: { name?: unknown } }).metadata?.name;
  return typeof name === 'string' && name !== '';
}

/**
 * Checks the fixture against the facets it must support.
 * @throws TypeError naming the missing or bad field.
 */
export function validateFixture(suite: string, fixture: ProviderFixture, facets: readonly ConformanceFacet[]): void {
  const bad = (msg: string): never => {
    throw new TypeError(`describeProviderConformance(${suite}): setup() ${msg}`);
  };
  if (typeof fixture !== 'object' || fixture === null) bad('must return an object ({ cloud, ... })');
  const { cloud } = fixture;
  if (typeof cloud !== 'object' || cloud === null) bad('must return { cloud } (the provider)');
  if (typeof cloud.providerName !== 'function' || typeof cloud.hasClusterID !== 'function') {
    bad('returned a cloud without providerName()/hasClusterID(); is it a CloudProvider?');
  }
  const needsNodes = facets.includes('instancesV2') || facets.includes('instances') || facets.includes('zones');
  for (const role of ['existingNode', 'missingNode'] as const) {
    const node = fixture[role];
    if (node === undefined) {
      const why = needsNodes
        ? 'the provider implements instances'
        : role === 'existingNode' && facets.includes('routes')
          ? 'the routes checks target it'
          : undefined;
      if (why) bad(`must return ${role} (a V1Node with metadata.name) because ${why}`);
    } else if (!isNodeLike(node)) bad(`returned ${role} without metadata.name`);
  }
  if (fixture.stoppedNode !== undefined && !isNodeLike(fixture.stoppedNode))
    bad('returned stoppedNode without metadata.name');
  for (const key of ['breakCloud', 'healCloud', 'teardown', 'listCloudLoadBalancers'] as const) {
    if (fixture[key] !== undefined && typeof fixture[key] !== 'function') bad(`returned ${key} that is not a function`);
  }
  if ((fixture.breakCloud === undefined) !== (fixture.healCloud === undefined)) {
    bad('must return both breakCloud and healCloud, or neither');
  }
}

/** A built fixture with the facets its provider implements, and a function that releases it. */
export interface BuiltFixture<F extends ProviderFixture> {
  readonly fixture: F;
  readonly facets: ConformanceFacet[];
  /** Aborts the initialize signal, then runs the fixture's `teardown`. */
  release(): Promise<void>;
}

/**
 * Runs `setup()`, validates the fixture and (unless `initialize: false`) calls `cloud.initialize`.
 * @throws the setup or initialize error (after tearing the fixture down), or TypeError for a bad fixture.
 */
export async function buildFixture<F extends ProviderFixture>(
  options: ProviderConformanceOptions<F>,
  timeouts: ResolvedTimeouts,
): Promise<BuiltFixture<F>> {
  const fixture = await within('setup()', timeouts.setupMs, Promise.resolve().then(options.setup));
  const controller = new AbortController();
  const release = async () => {
    controller.abort(new Error('conformance check finished'));
    if (fixture?.teardown) await within('teardown()', timeouts.setupMs, Promise.resolve().then(fixture.teardown));
  };
  try {
    const facets = implementedFacets(fixture?.cloud ?? ({} as never));
    validateFixture(options.name, fixture, facets);
    const { cloud } = fixture;
    if (options.initialize !== false && typeof cloud.initialize === 'function') {
      const builder = fixture.clientBuilder ?? missingClientBuilder(options.name);
      await within(
        'initialize()',
        timeouts.setupMs,
        Promise.resolve().then(() => cloud.initialize!(builder, controller.signal)),
      );
    }
    return { fixture, facets, release };
  } catch (err) {
    await release().catch(() => undefined);
    throw err;
  }
}

/** How {@link runWithFixture} runs one check. */
export interface RunSpec<F extends ProviderFixture> {
  readonly id: string;
  readonly options: ProviderConformanceOptions<F>;
  readonly timeouts: ResolvedTimeouts;
  readonly clusterName: string;
  /** Keep watching for unhandled rejections for `timeouts.settleMs` after teardown. */
  readonly settle?: boolean;
}

/**
 * Runs `body` against a fresh fixture; heals a broken cloud, aborts the initialize signal and tears the
 * fixture down afterwards. A teardown failure fails a check that otherwise passed, and so does a promise
 * rejection nobody handled while the check ran (until teardown, plus `timeouts.settleMs` with `settle`).
 */
export async function runWithFixture<F extends ProviderFixture>(
  spec: RunSpec<F>,
  body: (ctx: CheckContext) => Promise<void>,
): Promise<void> {
  const { id, options, timeouts } = spec;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  let failure: unknown;
  try {
    const built = await buildFixture(options, timeouts);
    const calls = new AbortController();
    const ctx = new CheckContext<F>({
      id,
      fixture: built.fixture,
      options,
      timeouts,
      clusterName: spec.clusterName,
      signal: calls.signal,
    });
    try {
      await body(ctx as unknown as CheckContext);
    } catch (err) {
      failure = err;
    }
    try {
      if (ctx.broken) await ctx.healCloud();
      calls.abort(new Error('conformance check finished'));
      await built.release();
    } catch (err) {
      failure ??= new Error(
        `describeProviderConformance(${options.name}): cleaning up after ${id} failed: ${describeError(err)}`,
        { cause: err },
      );
    }
    if (spec.settle) await sleep(timeouts.settleMs);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  if (failure !== undefined) throw failure;
  if (unhandled.length > 0) {
    throw new ConformanceViolation(
      id,
      `${unhandled.length} promise rejection(s) nobody handled while this check ran (first: ${describeError(unhandled[0])}); under Node's default --unhandled-rejections=throw that crashes the controller manager. A common cause: work started for a call that was already aborted, then abandoned`,
      { cause: unhandled[0] },
    );
  }
}
