/**
 * The bookkeeping of one route reconcile pass: which routes exist per target Node, and for each Pod CIDR of
 * each Node whether its route is to be added, kept or updated (deleted and re-created). Pure and synchronous;
 * the controller performs the cloud calls. Follows upstream `controllers/route/route_controller.go`
 * (`reconcile`, `getRouteAction`, `equalNodeAddrs`, the `shouldDeleteRoute` closure).
 */
import type { Route } from '@ccm-kit/cloud-provider';
import type { V1Node, V1NodeAddress } from '@kubernetes/client-node';
import { deepEqualNilStrict } from '../shared/deep-equal.js';

/** What to do with the route of one Pod CIDR. `remove` exists upstream but is never produced. */
export type RouteAction = 'add' | 'keep' | 'update' | 'remove';

/** The routes and wanted actions of one target Node. */
export interface RouteNode {
  readonly name: string;
  /** The Node's `status.addresses` (empty until the Node is seen with Pod CIDRs). */
  addrs: V1NodeAddress[];
  /** Existing routes that target this Node, in list order. */
  readonly routes: Route[];
  /** Pod CIDR → action (string keys, exact match; the last write wins for duplicate CIDRs). */
  readonly actions: Map<string, RouteAction>;
}

/** A route to create for a Node's Pod CIDR. */
export interface PlannedCreate {
  readonly node: V1Node;
  readonly nodeName: string;
  /** The Node UID, passed to `createRoute` as `nameHint`. */
  readonly nameHint: string;
  readonly route: Route;
}

/** Whether to write the `NetworkUnavailable` condition of a Node after the pass, and with what outcome. */
export type ConditionOutcome = 'skip' | 'routes-created' | 'routes-not-created';

/** The Node's Pod CIDRs (`spec.podCIDRs`), or an empty list. */
export function podCIDRsOf(node: V1Node): string[] {
  return node.spec?.podCIDRs ?? [];
}

/**
 * Upstream `equalNodeAddrs`: same length, and every address of `a` deep-equals one of `b`
 * (so duplicates can make unequal lists compare equal, as upstream).
 */
export function equalNodeAddrs(a: readonly V1NodeAddress[] | undefined, b: readonly V1NodeAddress[] | undefined) {
  const aa = a ?? [];
  const bb = b ?? [];
  if (aa.length !== bb.length) return false;
  return aa.every((x) => bb.some((y) => deepEqualNilStrict(x, y)));
}

/**
 * Upstream `getRouteAction`: the first route whose `destinationCIDR` string equals `cidr` decides: none → `add`;
 * `enableNodeAddresses` false or addresses equal → `keep`; otherwise `update`.
 */
export function getRouteAction(
  routes: readonly Route[],
  cidr: string,
  nodeAddrs: readonly V1NodeAddress[] | undefined,
): RouteAction {
  const route = routes.find((r) => r.destinationCIDR === cidr);
  if (!route) return 'add';
  if (!route.enableNodeAddresses || equalNodeAddrs(nodeAddrs, route.targetNodeAddresses)) return 'keep';
  return 'update';
}

/** The plan of one pass: built from the Node list and the cloud's routes, then updated as creates succeed. */
export class RoutePlan {
  /** Target Node name → its entry. Routes with an empty target are not indexed. */
  readonly byNode = new Map<string, RouteNode>();
  /** Log lines the controller may print: one per (Node, Pod CIDR) action. */
  readonly decisions: Array<{ node: string; podCIDR: string; action: RouteAction }> = [];

  /** Steps 1 and 2 of upstream `reconcile`: index routes by target, then compute actions for Nodes with Pod CIDRs. */
  constructor(
    readonly nodes: readonly V1Node[],
    readonly routes: readonly Route[],
  ) {
    for (const route of routes) {
      if (!route.targetNode) continue;
      this.entry(route.targetNode).routes.push(route);
    }
    for (const node of nodes) {
      const cidrs = podCIDRsOf(node);
      if (cidrs.length === 0) continue;
      const name = node.metadata?.name ?? '';
      const rn = this.entry(name);
      rn.addrs = node.status?.addresses ?? [];
      for (const podCIDR of cidrs) {
        const action = getRouteAction(rn.routes, podCIDR, node.status?.addresses);
        rn.actions.set(podCIDR, action);
        this.decisions.push({ node: name, podCIDR, action });
      }
    }
  }

  private entry(name: string): RouteNode {
    let rn = this.byNode.get(name);
    if (!rn) {
      rn = { name, addrs: [], routes: [], actions: new Map() };
      this.byNode.set(name, rn);
    }
    return rn;
  }

  /**
   * Upstream `shouldDeleteRoute`: true when the target has no entry (including an empty target), or the CIDR has
   * no action, or its action is `remove` or `update`.
   */
  shouldDeleteRoute(targetNode: string, cidr: string): boolean {
    const rn = targetNode ? this.byNode.get(targetNode) : undefined;
    if (!rn) return true;
    const action = rn.actions.get(cidr);
    return action === undefined || action === 'remove' || action === 'update';
  }

  /**
   * Step 3: the routes to delete, in list order: those `isResponsible` accepts that are blackholes or
   * {@link shouldDeleteRoute}.
   */
  routesToDelete(isResponsible: (route: Route) => boolean): Route[] {
    return this.routes.filter(
      (r) => isResponsible(r) && (r.blackhole === true || this.shouldDeleteRoute(r.targetNode, r.destinationCIDR)),
    );
  }

  /** Step 4: creates wait for deletes only when the first listed route has `enableNodeAddresses` set. */
  createsWaitForDeletes(): boolean {
    return this.routes.length > 0 && this.routes[0]!.enableNodeAddresses === true;
  }

  /**
   * Step 5: one create per Pod CIDR whose action is `add` or `update`, for every Node with Pod CIDRs, in order
   * (no de-duplication: a CIDR listed twice is created twice). The route carries the Node's addresses,
   * `enableNodeAddresses` unset and no name; `nameHint` is the Node UID.
   */
  plannedCreates(): PlannedCreate[] {
    const out: PlannedCreate[] = [];
    for (const node of this.nodes) {
      const name = node.metadata?.name ?? '';
      for (const podCIDR of podCIDRsOf(node)) {
        const action = this.byNode.get(name)?.actions.get(podCIDR);
        if (action === 'keep' || action === 'remove') continue;
        out.push({
          node,
          nodeName: name,
          nameHint: node.metadata?.uid ?? '',
          route: { targetNode: name, targetNodeAddresses: node.status?.addresses, destinationCIDR: podCIDR },
        });
      }
    }
    return out;
  }

  /** Marks a created route's CIDR as `keep`. */
  markCreated(nodeName: string, cidr: string): void {
    this.byNode.get(nodeName)?.actions.set(cidr, 'keep');
  }

  /**
   * Step 7: no entry → `skip` (no write); an entry without actions (only a route target) → `routes-not-created`;
   * otherwise `routes-created` when no action is left at `add` or `update`.
   */
  conditionOutcome(node: V1Node): ConditionOutcome {
    const rn = this.byNode.get(node.metadata?.name ?? '');
    if (!rn) return 'skip';
    if (rn.actions.size === 0) return 'routes-not-created';
    for (const a of rn.actions.values()) if (a === 'add' || a === 'update') return 'routes-not-created';
    return 'routes-created';
  }
}
