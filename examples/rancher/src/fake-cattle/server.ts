/**
 * A fake of Rancher 1.x's Cattle API (`/v2-beta`) on loopback HTTP, enough for this provider and its tests:
 * basic authentication, collections listed with filters (`field=value`, `<field>_null=1`), resources read,
 * created (`POST`), changed (`PUT`) and removed (`DELETE`), actions (`POST …?action=<name>`) offered only in the
 * states that allow them, and links (`GET <resource>/<link>`). The lifecycle (actions that appear after a
 * delay, public endpoints after activation) is {@link FakeCattleState}'s.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectionOf, COLLECTIONS, FakeCattleState, type FakeCattleStateOptions, type Stored } from './state.js';

/** Options of {@link startFakeCattle}. */
export interface FakeCattleOptions extends FakeCattleStateOptions {
  /** The key pair the API accepts (default `fake-access-key` / `fake-secret-key`). */
  accessKey?: string;
  secretKey?: string;
}

/** A running fake Cattle API. */
export interface FakeCattle {
  /** The API's base URL (`http://127.0.0.1:<port>/v2-beta`): `CATTLE_URL`. */
  readonly url: string;
  readonly accessKey: string;
  readonly secretKey: string;
  /** The data, to seed hosts and to read what the provider made. */
  readonly state: FakeCattleState;
  /** Every request so far, as `<METHOD> <path>`. */
  readonly requests: string[];
  /** Answers every request with this status until called with `undefined` (an outage). */
  failWith(status: number | undefined): void;
  close(): Promise<void>;
}

const API = '/v2-beta';
const IGNORED_PARAMS = new Set(['limit', 'marker', 'sort', 'order', 'action']);

/** Starts the fake on 127.0.0.1 at a free port. */
export async function startFakeCattle(options: FakeCattleOptions = {}): Promise<FakeCattle> {
  const state = new FakeCattleState(options);
  const accessKey = options.accessKey ?? 'fake-access-key';
  const secretKey = options.secretKey ?? 'fake-secret-key';
  const expected = `Basic ${Buffer.from(`${accessKey}:${secretKey}`).toString('base64')}`;
  const requests: string[] = [];
  let failure: number | undefined;
  let base = '';

  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (failure !== undefined) return send(res, failure, problem(failure, 'InjectedFailure'));
    if (req.headers.authorization !== expected) return send(res, 401, problem(401, 'Unauthorized'));
    void readBody(req).then(
      (body) => route(state, base, req.method ?? 'GET', new URL(req.url ?? '/', base), body, res),
      () => send(res, 400, problem(400, 'InvalidBodyContent')),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}${API}`,
    accessKey,
    secretKey,
    state,
    requests,
    failWith: (status) => (failure = status),
    close: async () => {
      state.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function route(
  state: FakeCattleState,
  base: string,
  method: string,
  url: URL,
  body: Record<string, unknown>,
  res: ServerResponse,
): void {
  const [collection, id, link, ...rest] = url.pathname.slice(API.length + 1).split('/');
  const types = COLLECTIONS[collection ?? ''];
  if (!url.pathname.startsWith(`${API}/`) || !types || rest.length > 0) return send(res, 404, problem(404, 'NotFound'));
  const render = (r: Stored) => renderResource(state, base, r);
  if (id === undefined) {
    if (method === 'GET')
      return send(res, 200, collectionOfItems(types[0]!, matching(state.all(...types), url), render));
    if (method === 'POST' && types.length === 1) return send(res, 201, render(state.create(types[0]!, body)));
    return send(res, 405, problem(405, 'MethodNotAllowed'));
  }
  const item = state.get(id);
  if (!item || !types.includes(item.type) || (item.removed !== null && method !== 'GET')) {
    return send(res, 404, problem(404, 'NotFound'));
  }
  if (link !== undefined) {
    if (method !== 'GET') return send(res, 405, problem(405, 'MethodNotAllowed'));
    const linkName = state.linksOf(item).find((l) => l.toLowerCase() === link.toLowerCase());
    if (!linkName) return send(res, 404, problem(404, 'NotFound'));
    return send(res, 200, collectionOfItems('resource', state.follow(item, linkName), render));
  }
  const action = url.searchParams.get('action');
  if (method === 'POST' && action) {
    try {
      state.act(item, action, body);
    } catch (err) {
      return send(res, 422, problem(422, 'InvalidAction', (err as Error).message));
    }
    return send(res, 200, render(item));
  }
  if (method === 'GET') return send(res, 200, render(item));
  if (method === 'PUT') {
    state.update(item, body);
    return send(res, 200, render(item));
  }
  if (method === 'DELETE') {
    state.remove(item.id);
    return send(res, 200, render(item));
  }
  return send(res, 405, problem(405, 'MethodNotAllowed'));
}

/** The items matching every filter of the query. */
function matching(items: Stored[], url: URL): Stored[] {
  let out = items;
  for (const [key, value] of url.searchParams) {
    if (IGNORED_PARAMS.has(key)) continue;
    if (key.endsWith('_null')) {
      const field = key.slice(0, -'_null'.length);
      out = out.filter((r) => r[field] === null || r[field] === undefined);
    } else {
      out = out.filter((r) => r[key] !== undefined && String(r[key]) === value);
    }
  }
  return out;
}

function renderResource(state: FakeCattleState, base: string, r: Stored): Record<string, unknown> {
  const self = `${base}${API}/${collectionOf(r.type)}/${r.id}`;
  const links: Record<string, string> = { self };
  for (const l of state.linksOf(r)) links[l] = `${self}/${l.toLowerCase()}`;
  const actions: Record<string, string> = {};
  for (const a of state.actionsOf(r)) actions[a] = `${self}?action=${a}`;
  return { ...r, links, actions };
}

function collectionOfItems(resourceType: string, items: Stored[], render: (r: Stored) => unknown) {
  return { type: 'collection', resourceType, data: items.map(render) };
}

function problem(status: number, code: string, message = code) {
  return { type: 'error', status, code, message };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}
