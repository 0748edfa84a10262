import type { ServerResponse } from 'node:http';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ClientFactory, createClientFactory, isGone } from '../src/client/index.js';
import { restListerWatcher, SharedInformerFactory, type WatchEvent } from '../src/informers/index.js';
import { namespacedPath } from '../src/informers/factory.js';
import { WatchInactivityError } from '../src/informers/list-watch.js';
import { sendJson, startTestServer, status, type TestServer } from './client-test-server.js';

describe('restListerWatcher', () => {
  let srv: TestServer;
  let clients: ClientFactory;
  beforeEach(async () => {
    srv = await startTestServer();
    clients = createClientFactory({ kubeConfig: srv.kubeConfig, qps: -1, userAgent: 'ua' });
  });
  afterEach(async () => {
    await clients.close();
    await srv.close();
  });

  it('lists with limit, continue and selectors and returns the page', async () => {
    srv.setHandler((req, res) =>
      sendJson(res, 200, {
        apiVersion: 'v1',
        kind: 'NodeList',
        metadata: { resourceVersion: '42', continue: 'next' },
        items: [{ metadata: { name: 'a' } }],
      }),
    );
    const lw = restListerWatcher(clients, {
      path: '/api/v1/nodes',
      labelSelector: 'a=b',
      fieldSelector: 'x=y',
    });
    const page = await lw.list({ limit: 500, continue: 'c1', signal: new AbortController().signal });
    expect(page).toEqual({
      items: [{ metadata: { name: 'a' } }],
      resourceVersion: '42',
      continue: 'next',
      apiVersion: 'v1',
      kind: 'NodeList',
    });
    const q = srv.requests[0]?.url.searchParams;
    expect(Object.fromEntries(q ?? [])).toEqual({
      limit: '500',
      continue: 'c1',
      labelSelector: 'a=b',
      fieldSelector: 'x=y',
    });
    expect(srv.requests[0]?.headers['user-agent']).toBe('ua/shared-informers');
  });

  it('throws an ApiException for error statuses (410 is isGone)', async () => {
    srv.setHandler((_req, res) =>
      sendJson(res, 410, status(410, 'Expired', 'The provided continue parameter is too old')),
    );
    const lw = restListerWatcher(clients, { path: '/api/v1/nodes' });
    const err = await lw.list({ signal: new AbortController().signal }).catch((e: unknown) => e);
    expect(isGone(err)).toBe(true);
    expect((err as Error).message).toMatch(
      /list \/api\/v1\/nodes: HTTP 410: The provided continue parameter is too old/,
    );
  });

  it('watches with watch, resourceVersion, allowWatchBookmarks and timeoutSeconds; parses lines split across chunks', async () => {
    srv.setHandler((_req, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const a = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '5' } } });
      const b = JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '6' } } });
      res.write(a.slice(0, 10));
      setTimeout(() => {
        res.write(`${a.slice(10)}\n${b.slice(0, 5)}`);
        setTimeout(() => res.end(`${b.slice(5)}\n`), 10);
      }, 10);
    });
    const lw = restListerWatcher(clients, { path: '/api/v1/nodes', labelSelector: 'a=b' });
    const events: WatchEvent[] = [];
    for await (const ev of lw.watch({
      resourceVersion: '4',
      timeoutSeconds: 333,
      signal: new AbortController().signal,
    }))
      events.push(ev);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(Object.fromEntries(srv.requests[0]?.url.searchParams ?? [])).toEqual({
      labelSelector: 'a=b',
      watch: 'true',
      resourceVersion: '4',
      allowWatchBookmarks: 'true',
      timeoutSeconds: '333',
    });
  });

  it('abandons a silent watch with WatchInactivityError', async () => {
    srv.setHandler((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('\n'); // headers and one byte, then silence
    });
    const lw = restListerWatcher(clients, { path: '/api/v1/nodes', inactivityTimeoutMs: 150 });
    const t0 = performance.now();
    const it = lw.watch({ resourceVersion: '1', timeoutSeconds: 300, signal: new AbortController().signal });
    await expect(
      (async () => {
        for await (const _ of it) {
          // nothing arrives
        }
      })(),
    ).rejects.toBeInstanceOf(WatchInactivityError);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('a watch answered 410 throws isGone', async () => {
    srv.setHandler((_req, res) => sendJson(res, 410, status(410, 'Gone')));
    const lw = restListerWatcher(clients, { path: '/api/v1/nodes' });
    const err = await (async () => {
      for await (const _ of lw.watch({
        resourceVersion: '1',
        timeoutSeconds: 300,
        signal: new AbortController().signal,
      })) {
        // none
      }
    })().catch((e: unknown) => e);
    expect(isGone(err)).toBe(true);
  });
});

describe('SharedInformerFactory', () => {
  let srv: TestServer;
  let clients: ClientFactory;
  beforeEach(async () => {
    srv = await startTestServer();
    clients = createClientFactory({ kubeConfig: srv.kubeConfig, qps: -1 });
  });
  afterEach(async () => {
    await clients.close();
    await srv.close();
  });

  it('shares one informer per resource and selector', () => {
    const f = new SharedInformerFactory(clients);
    expect(f.nodes()).toBe(f.nodes());
    expect(f.services()).toBe(f.forResource({ path: '/api/v1/services' }));
    expect(f.forResource({ path: '/api/v1/pods', labelSelector: 'a=b' })).not.toBe(
      f.forResource({ path: '/api/v1/pods' }),
    );
    expect(() => f.forResource({ path: 'nodes' })).toThrow(/path: expected a collection path/);
  });

  it('namespacedPath inserts the namespace segment', () => {
    expect(namespacedPath('/api/v1/services', 'ns')).toBe('/api/v1/namespaces/ns/services');
    expect(namespacedPath('/apis/discovery.k8s.io/v1/endpointslices', 'x')).toBe(
      '/apis/discovery.k8s.io/v1/namespaces/x/endpointslices',
    );
    expect(namespacedPath('/api/v1/nodes', undefined)).toBe('/api/v1/nodes');
  });

  it('start + waitForCacheSync: the informers list, sync and watch; a typed listFn is used when given', async () => {
    let listFnCalls = 0;
    srv.setHandler((req, res) => {
      // A server without WatchList (its feature gate off) rejects sendInitialEvents: the informers fall back to LIST.
      if (req.url.searchParams.get('sendInitialEvents') === 'true')
        return sendJson(
          res,
          422,
          status(
            422,
            'Invalid',
            'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
          ),
        );
      if (req.url.searchParams.get('watch') === 'true') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(
          `${JSON.stringify({ type: 'ADDED', object: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2', resourceVersion: '3' } } })}\n`,
        );
        return;
      }
      sendJson(res, 200, {
        apiVersion: 'v1',
        kind: 'NodeList',
        metadata: { resourceVersion: '2' },
        items: [{ metadata: { name: 'n1', resourceVersion: '2' } }],
      });
    });
    const f = new SharedInformerFactory(clients);
    const nodes = f.nodes();
    const svcs = f.forResource<{ metadata: { name: string; namespace: string } }>({
      path: '/api/v1/services',
      namespace: 'default',
      listFn: async (p) => {
        listFnCalls++;
        expect(p.limit).toBe(500);
        return {
          metadata: { resourceVersion: '7' },
          items: [{ metadata: { name: 's', namespace: 'default' } }],
        };
      },
      apiVersion: 'v1',
      kind: 'Service',
    });
    const ac = new AbortController();
    f.start(ac.signal);
    expect(await f.waitForCacheSync(ac.signal)).toBe(true);
    expect(listFnCalls).toBe(1);
    expect(svcs.lister.get('default/s')).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's', namespace: 'default' },
    });
    expect(nodes.lister.get('n1')?.kind).toBe('Node');
    await eventuallyValue(() => nodes.lister.get('n2'), { timeoutMs: 5_000, intervalMs: 10 });
    expect(nodes.lister.get('n2')).toBeDefined();
    const watchReq = srv.requests.find((r) => r.url.pathname === '/api/v1/namespaces/default/services');
    expect(watchReq?.url.searchParams.get('watch')).toBe('true');
    ac.abort();
    await f.shutdown();
  });

  it('streams the initial state with a WatchList (no LIST) and goes on watching on the same stream', async () => {
    const line = (o: unknown) => `${JSON.stringify(o)}\n`;
    const node = (name: string, rv: string) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, resourceVersion: rv },
    });
    srv.setHandler((req, res) => {
      if (req.url.searchParams.get('watch') !== 'true')
        return sendJson(res, 500, status(500, 'InternalError', 'no LIST expected'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(line({ type: 'ADDED', object: node('a', '5') }));
      res.write(line({ type: 'ADDED', object: node('b', '6') }));
      res.write(
        line({
          type: 'BOOKMARK',
          object: {
            kind: 'Node',
            apiVersion: 'v1',
            metadata: { resourceVersion: '6', annotations: { 'k8s.io/initial-events-end': 'true' } },
          },
        }),
      );
      res.write(line({ type: 'MODIFIED', object: node('a', '7') }));
    });
    const f = new SharedInformerFactory(clients);
    const nodes = f.nodes();
    const seen: string[] = [];
    nodes.addEventHandler({
      onAdd: (n) => seen.push(`add ${n.metadata?.name}`),
      onUpdate: (_o, n) => seen.push(`update ${n.metadata?.name}@${n.metadata?.resourceVersion}`),
    });
    const ac = new AbortController();
    f.start(ac.signal);
    expect(await f.waitForCacheSync(ac.signal)).toBe(true);
    await eventuallyValue(() => seen.length >= 3, { timeoutMs: 5_000, intervalMs: 10 });
    expect(seen).toEqual(['add a', 'add b', 'update a@7']);
    expect(srv.requests.map((r) => r.url.searchParams.get('watch'))).toEqual(['true']);
    const q = srv.requests[0]!.url.searchParams;
    expect(
      Object.fromEntries(
        ['sendInitialEvents', 'resourceVersionMatch', 'allowWatchBookmarks', 'resourceVersion'].map((k) => [
          k,
          q.get(k),
        ]),
      ),
    ).toEqual({
      sendInitialEvents: 'true',
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: 'true',
      resourceVersion: '',
    });
    expect(nodes.lastSyncResourceVersion()).toBe('7');
    ac.abort();
    await f.shutdown();
  });

  it('Node and Service informers with their default transforms cache the same objects from events parsed without managedFields and images; a custom transform still gets them', async () => {
    const line = (o: unknown) => `${JSON.stringify(o)}\n`;
    const managedFields = [{ manager: 'kubelet', fieldsV1: { 'f:status': { 'f:images': {} } } }];
    const images = [{ names: ['registry.example/a@sha256:00', 'a:1'], sizeBytes: 1 }];
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'a', resourceVersion: '5', managedFields, annotations: { n: '"images":["x"]' } },
      status: { images, addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] },
    };
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's', namespace: 'd', resourceVersion: '6', managedFields },
      spec: { type: 'LoadBalancer' },
    };
    srv.setHandler((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const nodes = req.url.pathname === '/api/v1/nodes';
      res.write(line({ type: 'ADDED', object: nodes ? node : svc }));
      res.write(
        line({
          type: 'BOOKMARK',
          object: { metadata: { resourceVersion: '9', annotations: { 'k8s.io/initial-events-end': 'true' } } },
        }),
      );
    });
    const seen: unknown[] = [];
    const keep = (o: Record<string, unknown>) => {
      seen.push(structuredClone(o));
      return o;
    };
    const ac = new AbortController();
    const byDefault = new SharedInformerFactory(clients);
    const custom = new SharedInformerFactory(clients, { transforms: { '/api/v1/nodes': keep } });
    const [n1, s1, n2] = [byDefault.nodes(), byDefault.services(), custom.nodes()];
    for (const f of [byDefault, custom]) f.start(ac.signal);
    expect(await byDefault.waitForCacheSync(ac.signal)).toBe(true);
    expect(await custom.waitForCacheSync(ac.signal)).toBe(true);
    const { managedFields: _m, ...nodeMeta } = node.metadata;
    expect(n1.lister.get('a')).toEqual({ ...node, metadata: nodeMeta, status: { addresses: node.status.addresses } });
    const { managedFields: _s, ...svcMeta } = svc.metadata;
    expect(s1.lister.get('d/s')).toEqual({ ...svc, metadata: svcMeta });
    expect(seen).toEqual([node]);
    expect(n2.lister.get('a')).toEqual(node);
    ac.abort();
    await Promise.all([byDefault.shutdown(), custom.shutdown()]);
  });

  it('falls back to LIST + WATCH for good when the server rejects the WatchList request', async () => {
    srv.setHandler((req, res) => {
      if (req.url.searchParams.get('sendInitialEvents') === 'true')
        return sendJson(res, 422, status(422, 'Invalid', 'sendInitialEvents is forbidden for watch'));
      if (req.url.searchParams.get('watch') === 'true') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`${JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '3' } } })}\n`);
        return;
      }
      sendJson(res, 200, {
        apiVersion: 'v1',
        kind: 'NodeList',
        metadata: { resourceVersion: '2' },
        items: [{ metadata: { name: 'n1', resourceVersion: '2' } }],
      });
    });
    const f = new SharedInformerFactory(clients);
    const nodes = f.nodes();
    const ac = new AbortController();
    f.start(ac.signal);
    expect(await f.waitForCacheSync(ac.signal)).toBe(true);
    expect(nodes.lister.get('n1')?.kind).toBe('Node');
    await eventuallyValue(() => srv.requests.length >= 3, { timeoutMs: 5_000, intervalMs: 10 });
    const kinds = srv.requests.map((r) =>
      r.url.searchParams.get('sendInitialEvents') ? 'watchlist' : r.url.searchParams.get('watch') ? 'watch' : 'list',
    );
    expect(kinds).toEqual(['watchlist', 'list', 'watch']);
    ac.abort();
    await f.shutdown();
  });
});
