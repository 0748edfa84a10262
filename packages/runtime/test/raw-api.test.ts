import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  setHeaderOptions,
  V1MicroTime,
  type V1Node,
} from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ClientFactory,
  CoordinationV1Client,
  CoreV1Client,
  callOptions,
  createClientFactory,
  isNotFound,
  patchOptions,
} from '../src/client/index.js';
import { discardResponse } from '../src/internal.js';
import { type RecordedRequest, sendJson, startTestServer, status, type TestServer } from './client-test-server.js';

/** What must be identical on the wire: verb, path and query, content type, and the JSON body. */
function wire(r: RecordedRequest) {
  return {
    method: r.method,
    path: r.url.pathname + r.url.search,
    contentType: r.headers['content-type'],
    userAgent: r.headers['user-agent'],
    authorization: r.headers.authorization,
    body: r.body === '' ? undefined : (JSON.parse(r.body) as unknown),
  };
}

// As it comes off the wire (the timestamp a string), which both clients send unchanged.
const node = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'n1',
    resourceVersion: '7',
    creationTimestamp: '2026-01-02T03:04:05Z',
    labels: { a: 'b' },
  },
  spec: { providerID: 'fake://n1', taints: [{ key: 'k', effect: 'NoSchedule' }] },
  status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] },
} as unknown as V1Node;

describe('raw clients (CoreV1Client, CoordinationV1Client)', () => {
  let srv: TestServer;
  let f: ClientFactory;
  beforeEach(async () => {
    srv = await startTestServer((req, res) => {
      if (req.url.pathname.endsWith('/missing'))
        return sendJson(res, 404, status(404, 'NotFound', 'nodes "missing" not found'));
      return sendJson(res, req.method === 'POST' ? 201 : 200, req.body ? JSON.parse(req.body) : node);
    });
    f = createClientFactory({ kubeConfig: srv.kubeConfig });
  });
  afterEach(async () => {
    await f.close();
    await srv.close();
  });

  /** Runs `call` with the typed and the raw client: both must put the same request on the wire. */
  async function same<A, B>(typed: A, raw: B, call: (api: A | B) => Promise<unknown>): Promise<void> {
    const before = srv.requests.length;
    await call(typed);
    await call(raw);
    const [a, b] = srv.requests.slice(before) as [RecordedRequest, RecordedRequest];
    expect(wire(b)).toEqual(wire(a));
  }

  it('sends the Node, Service status and Event calls exactly as client-node CoreV1Api does', async () => {
    const typed = f.client('node-controller', CoreV1Api);
    const raw = f.client('node-controller', CoreV1Client);
    const signal = new AbortController().signal;
    await same(typed, raw, (c) => c.readNode({ name: 'n1' }));
    await same(typed, raw, (c) => c.replaceNode({ name: 'n1', body: node }, callOptions({ signal })));
    await same(typed, raw, (c) =>
      c.patchNode({ name: 'n1', body: { metadata: { labels: { x: 'y' } } } }, patchOptions('strategic')),
    );
    await same(typed, raw, (c) =>
      c.patchNodeStatus({ name: 'n1', body: { status: { addresses: [] } } }, patchOptions('strategic', { signal })),
    );
    await same(typed, raw, (c) => c.deleteNode({ name: 'n1' }, callOptions({ signal })));
    await same(typed, raw, (c) =>
      c.patchNamespacedServiceStatus(
        { namespace: 'ns', name: 's', body: { status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } } },
        setHeaderOptions('Content-Type', 'application/merge-patch+json'),
      ),
    );
    const event = {
      metadata: { name: 'n1.abc', namespace: 'default' },
      involvedObject: { kind: 'Node', name: 'n1' },
      reason: 'Synced',
      message: 'Node synced successfully',
      firstTimestamp: new Date('2026-01-02T03:04:05.123Z'),
      count: 1,
      type: 'Normal',
    };
    await same(typed, raw, (c) => c.createNamespacedEvent({ namespace: 'default', body: event }));
    await same(typed, raw, (c) =>
      c.patchNamespacedEvent({ namespace: 'default', name: 'n1.abc', body: { count: 2 } }, patchOptions('strategic')),
    );
    // The query parameters client-node sends for optional request fields.
    await same(typed, raw, (c) => c.replaceNode({ name: 'n1', body: node, fieldManager: 'm', dryRun: 'All' }));
  });

  it('sends the Lease calls exactly as client-node CoordinationV1Api does (MicroTime with 6 digits)', async () => {
    const typed = f.client('leader-election', CoordinationV1Api);
    const raw = f.client('leader-election', CoordinationV1Client);
    const lease = {
      metadata: { name: 'l', namespace: 'kube-system', resourceVersion: '3' },
      spec: { holderIdentity: 'me', renewTime: new V1MicroTime(Date.parse('2026-01-02T03:04:05.123Z')) },
    };
    await same(typed, raw, (c) => c.readNamespacedLease({ name: 'l', namespace: 'kube-system' }));
    await same(typed, raw, (c) => c.createNamespacedLease({ namespace: 'kube-system', body: lease }));
    await same(typed, raw, (c) => c.replaceNamespacedLease({ name: 'l', namespace: 'kube-system', body: lease }));
    expect(srv.requests.at(-1)?.body).toContain('"renewTime":"2026-01-02T03:04:05.123000Z"');
  });

  it("returns the server's JSON as sent (timestamps as strings, as informer objects carry them)", async () => {
    const raw = f.client('node-controller', CoreV1Client);
    expect(await raw.readNode({ name: 'n1' })).toEqual(node);
  });

  it('keeps fields client-node models do not know (client-node drops them)', async () => {
    const raw = f.client('node-controller', CoreV1Client);
    await raw.replaceNode({ name: 'n1', body: { ...node, spec: { ...node.spec, futureField: 1 } } as never });
    expect(JSON.parse(srv.requests.at(-1)!.body).spec.futureField).toBe(1);
  });

  it("throws client-node's ApiException with the status code and the Status text", async () => {
    const raw = f.client('node-controller', CoreV1Client);
    const err = await raw.readNode({ name: 'missing' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiException);
    expect((err as ApiException<string>).code).toBe(404);
    expect(isNotFound(err)).toBe(true);
    expect((err as Error).message).toContain('nodes "missing" not found');
  });

  it('with discardResponse sends the same request, reads the answer without parsing it and still throws', async () => {
    const raw = f.client('node-controller', CoreV1Client);
    const typed = f.client('node-controller', CoreV1Api);
    await same(typed, raw, (api) =>
      api.patchNodeStatus({ name: 'n1', body: { status: {} } }, discardResponse(patchOptions('strategic'))),
    );
    await same(typed, raw, (api) =>
      api.replaceNode({ name: 'n1', body: node as never }, discardResponse(callOptions({}))),
    );
    // The typed client ignores the mark; the raw one resolves without the object.
    expect(
      await typed.replaceNode({ name: 'n1', body: node as never }, discardResponse(callOptions({}))),
    ).toMatchObject({
      metadata: { name: 'n1' },
    });
    expect(
      await raw.replaceNode({ name: 'n1', body: node as never }, discardResponse(callOptions({}))),
    ).toBeUndefined();
    // An answer that is not JSON (100 KB): read to the end without parsing it; a 404 still throws.
    srv.setHandler((req, res) => {
      if (req.url.pathname.endsWith('/missing'))
        return sendJson(res, 404, status(404, 'NotFound', 'nodes "missing" not found'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{ not json'.repeat(10_000));
    });
    await expect(raw.replaceNode({ name: 'n1', body: node as never }, discardResponse(callOptions({})))).resolves.toBe(
      undefined,
    );
    await expect(raw.replaceNode({ name: 'n1', body: node as never }, callOptions({}))).rejects.toThrow(SyntaxError);
    const err = await raw
      .replaceNode({ name: 'missing', body: node as never }, discardResponse(callOptions({})))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiException);
  });

  it('is cancelled through callOptions({ signal })', async () => {
    srv.setHandler(() => undefined); // never answers
    const raw = f.client('node-controller', CoreV1Client);
    const ac = new AbortController();
    const p = raw.readNode({ name: 'n1' }, callOptions({ signal: ac.signal }));
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
  });
});
