/**
 * Routes checks (upstream `cloud.go` `Routes`; upstream `k8s.io/cloud-provider controllers/route/route_controller.go`; upstream quirks 25-27 in docs/upstream-quirks.md). A route is matched
 * by target Node and destination CIDR, as the route controller does.
 */
import { randomUUID } from 'node:crypto';
import type { Route } from '@ccm-kit/cloud-provider';
import type { CheckSpec, ProviderProbe } from './check.js';
import type { CheckContext } from './context.js';
import { show } from './violation.js';

function same(a: Route, b: Route): boolean {
  return a.targetNode === b.targetNode && a.destinationCIDR === b.destinationCIDR;
}

function describeRoute(route: Route): string {
  return `${route.targetNode} -> ${route.destinationCIDR}`;
}

async function list(ctx: CheckContext, when: string): Promise<Route[]> {
  const routes = await ctx.call(`listRoutes(${ctx.clusterName})${when}`, () =>
    ctx.facet('routes').listRoutes(ctx.clusterName, ctx.signal),
  );
  ctx.require(Array.isArray(routes), `listRoutes${when} resolved ${show(routes)}, not an array`);
  return routes;
}

/** The test route, checked to be usable and absent before the check starts. */
async function freshRoute(ctx: CheckContext): Promise<Route> {
  const route = ctx.route();
  ctx.require(
    !!route?.targetNode && !!route.destinationCIDR,
    `the route to create needs targetNode and destinationCIDR (got ${show(route)}); give routes.route or an existingNode`,
  );
  const before = await list(ctx, ' before creating');
  ctx.require(
    !before.some((r) => same(r, route)),
    `listRoutes already holds ${describeRoute(route)} before the check created it; give a fresh fixture or another routes.route`,
  );
  return route;
}

async function create(ctx: CheckContext, route: Route): Promise<Route> {
  await ctx.call(`createRoute(${describeRoute(route)})`, () =>
    ctx.facet('routes').createRoute(ctx.clusterName, randomUUID(), { ...route }, ctx.signal),
  );
  const listed = (await list(ctx, ' after createRoute')).find((r) => same(r, route));
  ctx.require(listed !== undefined, `listRoutes does not show ${describeRoute(route)} after createRoute resolved`);
  return listed;
}

async function remove(ctx: CheckContext, route: Route, when: string): Promise<void> {
  await ctx.call(`deleteRoute(${describeRoute(route)})${when}`, () =>
    ctx.facet('routes').deleteRoute(ctx.clusterName, route, ctx.signal),
  );
}

/** Best-effort removal of the test route (so a failed check against a real cloud leaves nothing). */
async function cleanup(ctx: CheckContext): Promise<void> {
  if (ctx.broken) await ctx.healCloud().catch(() => undefined);
  const routes = ctx.facet('routes');
  const route = ctx.route();
  const left = await routes.listRoutes(ctx.clusterName).catch((): Route[] => []);
  for (const r of left.filter((x) => same(x, route))) {
    await routes.deleteRoute(ctx.clusterName, r).catch(() => undefined);
  }
}

function routeCheck(id: string, title: string, body: (ctx: CheckContext) => Promise<void>, settle = false): CheckSpec {
  return {
    id: `routes/${id}`,
    facet: 'routes',
    title,
    settle,
    async run(ctx: CheckContext) {
      try {
        await body(ctx);
      } finally {
        await cleanup(ctx);
      }
    },
  };
}

/** The Routes checks for a provider implementing the facet. */
export function routesChecks(probe: ProviderProbe): CheckSpec[] {
  const checks: CheckSpec[] = [
    routeCheck('round-trip', 'createRoute, listRoutes and deleteRoute round-trip', async (ctx: CheckContext) => {
      const route = await freshRoute(ctx);
      const listed = await create(ctx, route);
      await remove(ctx, listed, '');
      const after = await list(ctx, ' after deleteRoute');
      ctx.require(
        !after.some((r) => same(r, route)),
        `listRoutes still shows ${describeRoute(route)} after deleteRoute resolved`,
      );
    }),
    routeCheck('delete-twice', 'deleting a route that is already gone succeeds', async (ctx: CheckContext) => {
      const route = await freshRoute(ctx);
      const listed = await create(ctx, route);
      await remove(ctx, listed, '');
      await remove(ctx, listed, ' (already gone)');
      const after = await list(ctx, ' after two deleteRoute calls');
      ctx.require(!after.some((r) => same(r, route)), `listRoutes shows ${describeRoute(route)} after it was deleted`);
    }),
  ];
  if (probe.outage.has('routes')) {
    checks.push(
      routeCheck(
        'outage',
        'listRoutes rejects during a cloud outage (never an empty list)',
        async (ctx: CheckContext) => {
          const route = await freshRoute(ctx);
          const listed = await create(ctx, route);
          await ctx.breakCloud();
          const r = await ctx.attempt('listRoutes during the outage', () =>
            ctx.facet('routes').listRoutes(ctx.clusterName, ctx.signal),
          );
          ctx.require(
            !r.ok || r.value.some((x) => same(x, route)),
            `listRoutes resolved ${show(r.ok && r.value)} while the cloud API was failing; the route controller would mark Nodes NetworkUnavailable and re-create routes — reject instead`,
          );
          await ctx.healCloud();
          await remove(ctx, listed, ' after the outage');
        },
      ),
    );
  }
  if (probe.abortSignals) {
    checks.push(
      routeCheck(
        'abort',
        'calls with an already-aborted AbortSignal reject and change nothing',
        async (ctx: CheckContext) => {
          const routes = ctx.facet('routes');
          const route = await freshRoute(ctx);
          const aborted = AbortSignal.abort(new Error('conformance: aborted before the call'));
          const created = await ctx.attempt('createRoute with an aborted signal', () =>
            routes.createRoute(ctx.clusterName, randomUUID(), { ...route }, aborted),
          );
          ctx.require(!created.ok, 'createRoute resolved with an already-aborted signal; reject');
          const listedAborted = await ctx.attempt('listRoutes with an aborted signal', () =>
            routes.listRoutes(ctx.clusterName, aborted),
          );
          ctx.require(!listedAborted.ok, 'listRoutes resolved with an already-aborted signal; reject');
          const after = await list(ctx, ' after an aborted createRoute');
          ctx.require(!after.some((r) => same(r, route)), `an aborted createRoute created ${describeRoute(route)}`);
        },
        true,
      ),
    );
  }
  return checks;
}
