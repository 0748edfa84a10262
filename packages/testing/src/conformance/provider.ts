/**
 * Checks of the provider object itself (upstream `cloud.Interface`): `providerName()` and `hasClusterID()`,
 * and, when the vendor declares them, the expected facets.
 */
import type { CheckSpec, ProviderProbe } from './check.js';
import type { CheckContext } from './context.js';
import { implementedFacets } from './facets.js';
import type { ConformanceFacet } from './options.js';
import { isValidScheme } from './validate.js';
import { show } from './violation.js';

/** The `provider` facet's checks. `declared` is the `facets` option, when given. */
export function providerChecks(_probe: ProviderProbe, declared: readonly ConformanceFacet[] | undefined): CheckSpec[] {
  const checks: CheckSpec[] = [
    {
      id: 'provider/name',
      facet: 'provider',
      title: 'providerName() is a non-empty, stable URL scheme (the providerID prefix)',
      async run(ctx: CheckContext) {
        const name = ctx.cloud.providerName();
        ctx.require(typeof name === 'string' && name !== '', `providerName() returned ${show(name)}`);
        ctx.require(
          isValidScheme(name),
          `providerName() ${JSON.stringify(name)} is not a URL scheme (a letter, then letters, digits, + - .); providerIDs are <name>://<id>`,
        );
        const again = ctx.cloud.providerName();
        ctx.require(again === name, `providerName() changed between calls: ${show(name)} then ${show(again)}`);
      },
    },
    {
      id: 'provider/cluster-id',
      facet: 'provider',
      title: 'hasClusterID() returns a boolean',
      async run(ctx: CheckContext) {
        const value: unknown = ctx.cloud.hasClusterID();
        ctx.require(
          typeof value === 'boolean',
          `hasClusterID() returned ${show(value)}; start-up refuses a provider without a cluster ID unless --allow-untagged-cloud`,
        );
      },
    },
  ];
  if (declared !== undefined) {
    const expected = [...new Set<ConformanceFacet>(['provider', ...declared])];
    checks.push({
      id: 'provider/facets',
      facet: 'provider',
      title: `implements exactly the declared facets (${expected.join(', ')})`,
      async run(ctx: CheckContext) {
        const actual = implementedFacets(ctx.cloud);
        const missing = expected.filter((f) => !actual.includes(f));
        const extra = actual.filter((f) => !expected.includes(f));
        ctx.require(
          missing.length === 0 && extra.length === 0,
          `implemented facets are ${actual.join(', ')}` +
            (missing.length ? `; missing: ${missing.join(', ')}` : '') +
            (extra.length ? `; not declared: ${extra.join(', ')}` : ''),
        );
      },
    });
  }
  return checks;
}
