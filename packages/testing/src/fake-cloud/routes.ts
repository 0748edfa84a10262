/**
 * The fake cloud's route table (upstream `fake.Cloud.RouteMap` with `ListRoutes`, `CreateRoute`,
 * `DeleteRoute`). Pure functions over the map; {@link FakeCloud} records the calls and keeps the
 * sticky shared error.
 */
import type { Route } from '@ccm-kit/cloud-provider';

/** One stored route and the cluster it belongs to (upstream `fake.Route`). */
export interface FakeRoute {
  /** The cluster name the route was created under. */
  clusterName: string;
  /** The route as the provider stores it. */
  route: Route;
}

/** A copy of `route` whose address list is not shared with the original. */
export function copyRoute(route: Route): Route {
  const copy: Route = { ...route };
  if (route.targetNodeAddresses !== undefined) {
    copy.targetNodeAddresses = route.targetNodeAddresses.map((a) => ({ ...a }));
  }
  return copy;
}

/** The key (and stored name) of a created route: `<cluster>-<targetNode>-<destinationCIDR>`. */
export function routeKey(clusterName: string, route: Route): string {
  return `${clusterName}-${route.targetNode}-${route.destinationCIDR}`;
}

/** Copies of the routes of `clusterName`, in the map's insertion order. */
export function listRoutes(table: ReadonlyMap<string, FakeRoute>, clusterName: string): Route[] {
  const out: Route[] = [];
  for (const entry of table.values()) {
    if (entry.clusterName === clusterName) out.push(copyRoute(entry.route));
  }
  return out;
}

/**
 * Stores a copy of `route` named {@link routeKey} (the name hint is ignored, as upstream).
 * @returns `undefined` on success, or the conflict error `route "<key>" already exists` (not stored).
 */
export function createRoute(table: Map<string, FakeRoute>, clusterName: string, route: Route): Error | undefined {
  const key = routeKey(clusterName, route);
  if (table.has(key)) return new Error(`route "${key}" already exists`);
  table.set(key, { clusterName, route: { ...copyRoute(route), name: key } });
  return undefined;
}

/**
 * Removes the first route of `clusterName` with the same target node and destination CIDR (the
 * name is not compared, as upstream).
 * @returns `undefined` on success, or the error `no route found for node:<node> with DestinationCIDR== <cidr>`.
 */
export function deleteRoute(table: Map<string, FakeRoute>, clusterName: string, route: Route): Error | undefined {
  for (const [key, entry] of table) {
    if (
      entry.clusterName === clusterName &&
      entry.route.targetNode === route.targetNode &&
      entry.route.destinationCIDR === route.destinationCIDR
    ) {
      table.delete(key);
      return undefined;
    }
  }
  return new Error(`no route found for node:${route.targetNode} with DestinationCIDR== ${route.destinationCIDR}`);
}
