/**
 * The Routes facet over mockcloud's VPC route table, for the node-route controller
 * (`--configure-cloud-routes`): one route per Node, from its Pod CIDR to its server.
 *
 * - Ownership: routes carry the label `mockcloud.ccm-kit.io/cluster-id=<clusterID>`; only those are listed,
 *   and so only those are ever deleted.
 * - Target: upstream's `Route` names the Node only, so the target server is the one with the Node's name
 *   (hcloud's routes do the same), found in the shared server snapshot; `route.targetNode` of a listed route is
 *   its server's name, and a route whose server is gone is a blackhole (the controller deletes it).
 * - A create whose answer was lost and that is retried gets 409: the route is then looked up by name and
 *   accepted when it is the same route.
 */
import type { Route, Routes } from '@ccm-kit/cloud-provider';
import type { Logger } from '@ccm-kit/runtime';
import { type CloudRoute, isValidID, MockCloudApiError, type MockCloudClient } from '../client/index.js';
import { selectorFromLabels } from '../shared/labels.js';
import { LABEL_CLUSTER_ID } from './names.js';
import type { ServerCache } from './server-cache.js';

/** What {@link MockCloudRoutes} needs. */
export interface RoutesDeps {
  client: MockCloudClient;
  cache: ServerCache;
  clusterID: string;
  logger: Logger;
}

/** The route's name: `k8s-` and the Node UID hint, made a valid mockcloud name (at most 63 characters). */
export function routeName(nameHint: string, destinationCIDR: string): string {
  const base = nameHint !== '' ? nameHint : destinationCIDR;
  const cleaned = `k8s-${base.toLowerCase().replace(/[^a-z0-9-]+/g, '-')}`;
  return cleaned.slice(0, 63).replace(/-+$/, '');
}

/** The Routes facet. */
export class MockCloudRoutes implements Routes {
  readonly #d: RoutesDeps;

  constructor(deps: RoutesDeps) {
    this.#d = deps;
  }

  /**
   * This cluster's routes. `name` is the cloud route ID.
   * @throws the client's errors (never a partial list).
   */
  async listRoutes(_clusterName: string, signal?: AbortSignal): Promise<Route[]> {
    const routes = await this.#owned(signal);
    let snap = await this.#d.cache.get(signal);
    // A target missing from the snapshot may be a server created after it: a blackhole is deleted, so be sure.
    if (routes.some((r) => !snap.byID.has(r.targetServerID))) snap = await this.#d.cache.get(signal, true);
    return routes.map((r) => {
      const server = snap.byID.get(r.targetServerID);
      const out: Route = { name: r.id, targetNode: server?.name ?? '', destinationCIDR: r.destinationCIDR };
      if (!server) out.blackhole = true;
      return out;
    });
  }

  /**
   * Routes `route.destinationCIDR` to the server named `route.targetNode`.
   * @throws Error naming the Node when no server, or more than one, has its name; MockCloudApiError 409 when the
   *   destination is already routed elsewhere; every other API error.
   */
  async createRoute(_clusterName: string, nameHint: string, route: Route, signal?: AbortSignal): Promise<void> {
    let snap = await this.#d.cache.get(signal);
    if (!snap.byName.has(route.targetNode)) snap = await this.#d.cache.get(signal, true);
    const servers = snap.byName.get(route.targetNode) ?? [];
    if (servers.length !== 1) {
      throw new Error(
        `mockcloud: cannot route ${route.destinationCIDR} to node ${route.targetNode}: ${servers.length === 0 ? 'no server has its name' : `${servers.length} servers have its name`}`,
      );
    }
    const spec = {
      name: routeName(nameHint, route.destinationCIDR),
      labels: { [LABEL_CLUSTER_ID]: this.#d.clusterID },
      destinationCIDR: route.destinationCIDR,
      targetServerID: servers[0]!.id,
    };
    try {
      const created = await this.#d.client.createRoute(spec, signal);
      this.#d.logger.info('Created route', {
        id: created.id,
        node: route.targetNode,
        destination: created.destinationCIDR,
      });
    } catch (err) {
      if (!(err instanceof MockCloudApiError) || err.status !== 409) throw err;
      // Our own earlier create whose answer was lost, or a conflict to report.
      const [existing] = await this.#d.client.listRoutes({ name: spec.name, signal });
      const same =
        existing !== undefined &&
        existing.labels[LABEL_CLUSTER_ID] === this.#d.clusterID &&
        existing.targetServerID === spec.targetServerID &&
        existing.destinationCIDR === spec.destinationCIDR;
      if (!same) throw err;
    }
  }

  /**
   * Deletes the route `route.name` (a cloud route ID). A route that is already gone, or a name that is not a
   * mockcloud ID (so names no route), is success.
   * @throws the API's errors other than 404.
   */
  async deleteRoute(_clusterName: string, route: Route, signal?: AbortSignal): Promise<void> {
    const id = route.name ?? '';
    if (!isValidID(id)) {
      this.#d.logger.info('Not deleting a route whose name is not a mockcloud ID', { name: id });
      return;
    }
    const deleted = await this.#d.client.deleteRoute(id, signal);
    this.#d.logger.info(deleted ? 'Deleted route' : 'Route was already gone', {
      id,
      destination: route.destinationCIDR,
    });
  }

  async #owned(signal?: AbortSignal): Promise<CloudRoute[]> {
    return this.#d.client.listRoutes({
      labelSelector: selectorFromLabels({ [LABEL_CLUSTER_ID]: this.#d.clusterID }),
      signal,
    });
  }
}
