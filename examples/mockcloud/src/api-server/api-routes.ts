/**
 * The public `/v1` endpoints of the mock cloud API:
 *
 * | method | path | answer |
 * |---|---|---|
 * | GET | `/v1/servers?name=&label_selector=&page=&per_page=` | `WireServerList` |
 * | GET, PATCH | `/v1/servers/<id>` | `{ server }` |
 * | GET | `/v1/load_balancers?name=&label_selector=&page=&per_page=` | `WireLoadBalancerList` |
 * | POST | `/v1/load_balancers` | 201 `{ load_balancer }` (`provisioning`) |
 * | GET, PATCH | `/v1/load_balancers/<id>` | `{ load_balancer }` |
 * | DELETE | `/v1/load_balancers/<id>` | 204 |
 * | GET | `/v1/routes?name=&label_selector=&page=&per_page=` | `WireRouteList` |
 * | POST | `/v1/routes` | 201 `{ route }` |
 * | GET | `/v1/routes/<id>` | `{ route }` |
 * | DELETE | `/v1/routes/<id>` | 204 |
 */
import { LabelSyntaxError, parseLabelSelector } from '../shared/labels.js';
import type { WireLoadBalancerCreate } from '../wire.js';
import { paginate } from './pagination.js';
import { invalidInput, notFound } from './problem.js';
import { type RouteResponse, Router } from './routes.js';
import type { CloudState } from './state.js';
import { validateLoadBalancerBody, validateRouteBody, validateServerUpdate } from './validate.js';

function filter<T extends { name: string; labels: Record<string, string> }>(items: T[], url: URL): T[] {
  const name = url.searchParams.get('name');
  const selectorText = url.searchParams.get('label_selector') ?? '';
  let selector: ReturnType<typeof parseLabelSelector>;
  try {
    selector = parseLabelSelector(selectorText);
  } catch (err) {
    if (err instanceof LabelSyntaxError) throw invalidInput([`label_selector: ${err.message}`]);
    throw err;
  }
  return items.filter((i) => (name === null || i.name === name) && selector.matches(i.labels));
}

function list(key: string, items: unknown[], pagination: unknown, link: string | undefined): RouteResponse {
  return {
    status: 200,
    body: { [key]: items, meta: { pagination } },
    headers: link ? { link } : {},
  };
}

/** The `/v1` router over `state`. */
export function apiRouter(state: CloudState): Router {
  const exists = (id: string) => state.getServer(id) !== undefined;
  return new Router()
    .on('GET', '/v1/servers', ({ url }) => {
      const page = paginate(filter(state.listServers(), url), url);
      return list('servers', page.items, page.pagination, page.link);
    })
    .on('GET', '/v1/servers/:id', ({ params }) => {
      const server = state.getServer(params.id!);
      if (!server) throw notFound('server', params.id!);
      return { status: 200, body: { server } };
    })
    .on('PATCH', '/v1/servers/:id', ({ params, body }) => {
      const patch = validateServerUpdate(body);
      return { status: 200, body: { server: state.updateServer(params.id!, patch) } };
    })
    .on('GET', '/v1/load_balancers', ({ url }) => {
      const page = paginate(filter(state.listLoadBalancers(), url), url);
      return list('load_balancers', page.items, page.pagination, page.link);
    })
    .on('POST', '/v1/load_balancers', ({ body }) => {
      const create = validateLoadBalancerBody(body, exists, true) as WireLoadBalancerCreate;
      return { status: 201, body: { load_balancer: state.createLoadBalancer(create) } };
    })
    .on('GET', '/v1/load_balancers/:id', ({ params }) => {
      const lb = state.getLoadBalancer(params.id!);
      if (!lb) throw notFound('load balancer', params.id!);
      return { status: 200, body: { load_balancer: lb } };
    })
    .on('PATCH', '/v1/load_balancers/:id', ({ params, body }) => {
      const patch = validateLoadBalancerBody(body, exists, false);
      return { status: 200, body: { load_balancer: state.updateLoadBalancer(params.id!, patch) } };
    })
    .on('DELETE', '/v1/load_balancers/:id', ({ params }) => {
      if (!state.deleteLoadBalancer(params.id!)) throw notFound('load balancer', params.id!);
      return { status: 204 };
    })
    .on('GET', '/v1/routes', ({ url }) => {
      const page = paginate(filter(state.listRoutes(), url), url);
      return list('routes', page.items, page.pagination, page.link);
    })
    .on('POST', '/v1/routes', ({ body }) => ({
      status: 201,
      body: { route: state.createRoute(validateRouteBody(body, exists)) },
    }))
    .on('GET', '/v1/routes/:id', ({ params }) => {
      const route = state.getRoute(params.id!);
      if (!route) throw notFound('route', params.id!);
      return { status: 200, body: { route } };
    })
    .on('DELETE', '/v1/routes/:id', ({ params }) => {
      if (!state.deleteRoute(params.id!)) throw notFound('route', params.id!);
      return { status: 204 };
    });
}
