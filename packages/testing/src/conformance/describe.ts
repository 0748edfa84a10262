/**
 * The vitest face of the conformance suite: one `describe` per provider, one nested `describe` per
 * implemented facet, one `it` per check. Facets the provider does not implement get no tests at all (never
 * skipped tests counted as passes); the coverage is printed when the suite is collected. With
 * `pendingNotImplemented`, a check that a stub (`NotImplementedError`) stops is skipped as pending.
 */
import { describe, it } from 'vitest';
import type { ProviderConformanceOptions, ProviderFixture } from './options.js';
import { resolveOptions } from './options.js';
import { trackStubs } from './pending.js';
import { formatCoverage, planProviderConformance } from './plan.js';

/**
 * Registers the provider conformance suite in the current vitest file (call it at the top level of a test
 * file, or inside a `describe`).
 *
 * At collection time it calls `setup()` once (then `teardown`) to learn which facets the provider
 * implements; each check then builds its own fixture with `setup()`. Each check is limited to
 * `timeouts.testMs` (default 30,000 ms).
 *
 * ```ts
 * describeProviderConformance({
 *   name: 'mycloud',
 *   setup: async () => {
 *     const api = await startFakeApi();
 *     return {
 *       cloud: new MyCloud({ url: api.url }),
 *       existingNode: { metadata: { name: 'node-a' } },
 *       missingNode: { metadata: { name: 'ghost' } },
 *       breakCloud: () => api.failEverything(500),
 *       healCloud: () => api.recover(),
 *       teardown: () => api.close(),
 *     };
 *   },
 * });
 * ```
 * @throws TypeError/RangeError at once, naming the field, when the options are invalid. A failing
 *   `setup()` at collection time fails the file's collection (it is never silently skipped).
 */
export function describeProviderConformance<F extends ProviderFixture>(options: ProviderConformanceOptions<F>): void {
  const { timeouts } = resolveOptions(options);
  describe(`${options.name}: provider conformance`, async () => {
    const stubs = options.pendingNotImplemented ? trackStubs(options) : undefined;
    const plan = await planProviderConformance(stubs?.options ?? options);
    console.info(formatCoverage(plan.coverage));
    for (const facet of plan.coverage.implemented) {
      describe(facet, () => {
        for (const check of plan.checks.filter((c) => c.facet === facet)) {
          it(check.title, (ctx) => (stubs ? stubs.run(check, (note) => ctx.skip(note)) : check.run()), timeouts.testMs);
        }
      });
    }
  });
}
