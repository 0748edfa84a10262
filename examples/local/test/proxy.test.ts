/**
 * The proxy data plane for real, on loopback: small HTTP servers on 127.0.1.x stand in for the nodes'
 * node ports; load balancers get addresses from 127.0.2.0/24 and are reached with real HTTP requests.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, createServer as httpServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ControllerClientBuilder } from '@ccm-kit/cloud-provider';
import type { V1Node, V1Service } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecordingEventRecorder } from '@ccm-kit/testing';
import {
  ANNOTATION_ALGORITHM,
  ANNOTATION_HEALTH_CHECK_INTERVAL,
  ANNOTATION_IPS,
  ANNOTATION_SOURCE_RANGES,
} from '../src/annotations.js';
import { parseConfig } from '../src/config.js';
import { InventoryWatcher } from '../src/inventory-watcher.js';
import { LocalLoadBalancer } from '../src/load-balancer.js';
import { LocalCloud } from '../src/provider.js';
import { type DataPlaneFixture, dataPlaneFixture } from './data-plane-fixture.js';
import { lbService, nodeWith } from './fakes.js';
import { type FakeNode, failure, fakeNode, waitFor } from './loopback.js';
import { freePort, get } from './net.js';

const config = parseConfig(`
inventory: unused.yaml
drainTimeout: 2s
pools:
  - name: global
    addresses: [127.0.2.0/24]
`);

let nodes: FakeNode[];
let k8sNodes: V1Node[];
let fx: DataPlaneFixture;

beforeEach(async () => {
  const nodePort = await freePort('127.0.1.1');
  nodes = [];
  for (const [i, name] of ['n1', 'n2', 'n3'].entries()) nodes.push(await fakeNode(name, `127.0.1.${i + 1}`, nodePort));
  k8sNodes = nodes.map((n) => nodeWith(n.name, n.ip));
  fx = dataPlaneFixture(config, await freePort('127.0.2.1'));
  fx.defer(...nodes.map((n) => () => n.stop()));
});

afterEach(() => fx.close());

function service(annotations: Record<string, string> = {}, spec: Partial<NonNullable<V1Service['spec']>> = {}) {
  return fx.store.put(
    lbService('web', {
      annotations: { [ANNOTATION_HEALTH_CHECK_INTERVAL]: '100ms', ...annotations },
      spec: { ports: [{ name: 'http', port: fx.svcPort, protocol: 'TCP', nodePort: nodes[0]!.port }], ...spec },
    }),
  );
}

async function sequence(ip: string, n: number, localAddress?: string): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await get(ip, fx.svcPort, localAddress ? { localAddress } : {}));
  return out;
}

describe('proxy data plane on loopback', () => {
  it('serves HTTP through the allocated address, round robin across the nodes', async () => {
    const status = await fx.lb.ensureLoadBalancer('kubernetes', service(), k8sNodes);
    const ip = status.ingress?.[0]?.ip;
    expect(ip).toBe('127.0.2.1');
    const seen = await sequence(ip!, 6);
    expect([...seen].sort()).toEqual(['n1', 'n1', 'n2', 'n2', 'n3', 'n3']);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).not.toBe(seen[i - 1]);
    expect(seen.slice(0, 3)).toEqual(seen.slice(3));
  });

  it('moves traffic off a killed node at once, marks it unhealthy, and back when it returns', async () => {
    const svc = service();
    await fx.lb.ensureLoadBalancer('kubernetes', svc, k8sNodes);
    const proxy = fx.dataPlane.get(svc.metadata!.uid!)!;
    await nodes[1]!.stop();
    // Connections to n2 are refused: the proxy tries the next node, so no request fails.
    expect(new Set(await sequence('127.0.2.1', 6))).toEqual(new Set(['n1', 'n3']));
    await waitFor(() => proxy.health.snapshot()[`127.0.1.2:${nodes[1]!.port}`] === false);
    const listener = [...proxy.listeners().values()][0]!;
    const failuresBefore = listener.stats.connectFailures;
    expect(new Set(await sequence('127.0.2.1', 6))).toEqual(new Set(['n1', 'n3']));
    expect(listener.stats.connectFailures).toBe(failuresBefore); // unhealthy: no longer tried
    await nodes[1]!.start();
    await waitFor(() => proxy.health.snapshot()[`127.0.1.2:${nodes[1]!.port}`] === true);
    expect(await sequence('127.0.2.1', 3)).toContain('n2');
  });

  it('closes connections when no node is healthy', async () => {
    const svc = service();
    await fx.lb.ensureLoadBalancer('kubernetes', svc, k8sNodes);
    await Promise.all(nodes.map((n) => n.stop()));
    const err = await failure(get('127.0.2.1', fx.svcPort));
    expect(err.code ?? err.message).toMatch(/ECONNRESET|socket hang up/);
    const proxy = fx.dataPlane.get(svc.metadata!.uid!)!;
    await waitFor(() => Object.values(proxy.health.snapshot()).every((h) => !h));
    await failure(get('127.0.2.1', fx.svcPort));
    expect([...proxy.listeners().values()][0]!.stats.unserved).toBe(2);
  });

  it('enforces source ranges, updated in place', async () => {
    const svc = service({ [ANNOTATION_SOURCE_RANGES]: '10.0.0.0/8' });
    await fx.lb.ensureLoadBalancer('kubernetes', svc, k8sNodes);
    const listener = [...fx.dataPlane.get(svc.metadata!.uid!)!.listeners().values()][0]!;
    const err = await failure(get('127.0.2.1', fx.svcPort));
    expect(err.code ?? err.message).toMatch(/ECONNRESET|socket hang up/);
    expect(listener.stats.rejected).toBe(1);
    expect(nodes.reduce((n, x) => n + x.hits, 0)).toBe(0);

    const allowOne = fx.store.put({
      ...svc,
      spec: { ...svc.spec, loadBalancerSourceRanges: ['127.0.0.5/32'] },
    });
    await fx.lb.ensureLoadBalancer('kubernetes', allowOne, k8sNodes);
    expect([...fx.dataPlane.get(svc.metadata!.uid!)!.listeners().values()][0]).toBe(listener);
    expect(await get('127.0.2.1', fx.svcPort, { localAddress: '127.0.0.5' })).toMatch(/^n\d$/);
    await failure(get('127.0.2.1', fx.svcPort, { localAddress: '127.0.0.6' }));
    expect(listener.stats.rejected).toBe(2);
  });

  it('pins a client address to a node with source-hash', async () => {
    await fx.lb.ensureLoadBalancer('kubernetes', service({ [ANNOTATION_ALGORITHM]: 'source-hash' }), k8sNodes);
    const byClient = new Map<string, Set<string>>();
    for (let c = 10; c < 20; c++) {
      const client = `127.0.0.${c}`;
      byClient.set(client, new Set(await sequence('127.0.2.1', 3, client)));
    }
    for (const seen of byClient.values()) expect(seen.size).toBe(1);
    const used = new Set([...byClient.values()].flatMap((s) => [...s]));
    expect(used.size).toBeGreaterThan(1);
  });

  it('updateLoadBalancer changes backends in place: the listener and open connections stay', async () => {
    const svc = service();
    await fx.lb.ensureLoadBalancer('kubernetes', svc, k8sNodes);
    const proxy = fx.dataPlane.get(svc.metadata!.uid!)!;
    const listener = [...proxy.listeners().values()][0]!;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await get('127.0.2.1', fx.svcPort, { agent });
      const others = k8sNodes.filter((n) => n.metadata?.name !== first);
      await fx.lb.updateLoadBalancer('kubernetes', svc, others);
      expect([...proxy.listeners().values()][0]).toBe(listener);
      // The kept-alive connection still reaches the node it was opened to...
      expect(await get('127.0.2.1', fx.svcPort, { agent })).toBe(first);
      // ...while new connections go to the new set only.
      const fresh = new Set(await sequence('127.0.2.1', 4));
      expect(fresh).toEqual(new Set(others.map((n) => n.metadata!.name!)));
      expect(Object.keys(proxy.health.snapshot())).toHaveLength(2);
    } finally {
      agent.destroy();
    }
  });

  it('moves listeners when the address changes, keeping the port', async () => {
    const svc = service();
    await fx.lb.ensureLoadBalancer('kubernetes', svc, k8sNodes);
    const moved = fx.store.put({
      ...svc,
      metadata: {
        ...svc.metadata,
        annotations: { ...svc.metadata?.annotations, [ANNOTATION_IPS]: '127.0.2.77' },
      },
    });
    const status = await fx.lb.ensureLoadBalancer('kubernetes', moved, k8sNodes);
    expect(status.ingress?.[0]?.ip).toBe('127.0.2.77');
    expect(await get('127.0.2.77', fx.svcPort)).toMatch(/^n\d$/);
    const err = await failure(get('127.0.2.1', fx.svcPort));
    expect(err.code).toBe('ECONNREFUSED');
  });

  it('deletion drains open requests, then refuses connections and frees the address', async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    nodes = [await fakeNode('slow', '127.0.1.1', nodes[0]!.port, 300)];
    k8sNodes = [nodeWith('slow', '127.0.1.1')];
    const svc = service();
    await fx.lb.ensureLoadBalancer('kubernetes', svc, k8sNodes);
    const inFlight = get('127.0.2.1', fx.svcPort);
    await waitFor(() => nodes[0]!.hits === 1);
    const started = Date.now();
    await fx.lb.ensureLoadBalancerDeleted('kubernetes', fx.store.stored('default', 'web')!);
    expect(await inFlight).toBe('slow');
    expect(Date.now() - started).toBeLessThan(2_000); // finished, not cut at the drain timeout
    expect((await failure(get('127.0.2.1', fx.svcPort))).code).toBe('ECONNREFUSED');
    expect(fx.lb.ipam.size).toBe(0);
    await fx.lb.ensureLoadBalancerDeleted('kubernetes', fx.store.stored('default', 'web')!); // idempotent
  });

  it('reports an address it cannot bind, naming it', async () => {
    const offHost = new LocalLoadBalancer({
      config: parseConfig('inventory: x.yaml\npools: [{ name: global, addresses: [192.0.2.10] }]'),
      store: fx.store,
      recorder: new RecordingEventRecorder(),
      dataPlane: fx.dataPlane,
      isRunning: (k) => fx.dataPlane.get(k) !== undefined,
    });
    const svc = service();
    await expect(offHost.ensureLoadBalancer('kubernetes', svc, k8sNodes)).rejects.toThrow(
      `cannot listen on 192.0.2.10:${fx.svcPort}: EADDRNOTAVAIL (not an address of this host`,
    );
    // Nothing runs, so an update retries in full (and fails the same way) instead of only moving backends.
    expect(fx.dataPlane.get(svc.metadata!.uid!)).toBeUndefined();
    await expect(offHost.updateLoadBalancer('kubernetes', svc, k8sNodes)).rejects.toThrow(/EADDRNOTAVAIL/);
  });
});

describe('LocalCloud shutdown', () => {
  const builder: ControllerClientBuilder = {
    config: () => {
      throw new Error('not used');
    },
    client: () => {
      throw new Error('not used');
    },
  };
  let dir: string;
  let held: { release(): void; requests: number; server: Server } | undefined;

  afterEach(async () => {
    held?.release();
    await new Promise((r) => held?.server.close(r) ?? r(undefined));
    held = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  async function localCloud(drainTimeoutMs: number, inventoryYaml = 'machines: []'): Promise<LocalCloud> {
    dir = await mkdtemp(join(tmpdir(), 'ccm-local-cloud-'));
    await writeFile(join(dir, 'inventory.yaml'), inventoryYaml);
    const inventory = await InventoryWatcher.open(join(dir, 'inventory.yaml'));
    return new LocalCloud({
      config: { ...config, drainTimeoutMs },
      inventory,
      store: fx.store,
      recorder: new RecordingEventRecorder(),
    });
  }

  /** Replaces n1 by a node ("held") whose responses wait until released; it is the only backend. */
  async function heldNode(): Promise<V1Node[]> {
    await nodes[0]!.stop();
    const waiting: (() => void)[] = [];
    let released = false;
    const server = httpServer((_req, res) => {
      h.requests++;
      const answer = () => res.end('held');
      if (released) answer();
      else waiting.push(answer);
    });
    const h = {
      server,
      requests: 0,
      release: () => {
        released = true;
        for (const answer of waiting.splice(0)) answer();
      },
    };
    held = h;
    await new Promise<void>((r) => server.listen(nodes[0]!.port, '127.0.1.1', r));
    return [nodeWith('held', '127.0.1.1')];
  }

  it('sends to the address the inventory gives a machine while its Node has none yet', async () => {
    // A Node is given to the load balancer before the cloud-node controller wrote its addresses.
    const cloud = await localCloud(
      0,
      `machines:\n  - name: n2\n    addresses: [{ type: InternalIP, address: ${nodes[1]!.ip} }]\n`,
    );
    await cloud.initialize(builder, new AbortController().signal);
    await cloud.loadBalancer().ensureLoadBalancer('kubernetes', service(), [nodeWith('n2')]);
    expect(await get('127.0.2.1', fx.svcPort)).toBe('n2');
    await cloud.shutdown(new AbortController().signal);
  });

  it('keeps serving after the initialize signal aborts; shutdown stops every listener', async () => {
    const cloud = await localCloud(0);
    const abort = new AbortController();
    await cloud.initialize(builder, abort.signal);
    await cloud.loadBalancer().ensureLoadBalancer('kubernetes', service(), k8sNodes);
    expect(await get('127.0.2.1', fx.svcPort)).toMatch(/^n\d$/);
    abort.abort(); // the controllers stop first: traffic still flows until the manager's shutdown hook
    expect(await get('127.0.2.1', fx.svcPort)).toMatch(/^n\d$/);
    await cloud.shutdown(new AbortController().signal);
    expect((await failure(get('127.0.2.1', fx.svcPort))).code).toBe('ECONNREFUSED');
  });

  it('shutdown closes the listeners at once and resolves only after in-flight requests finished', async () => {
    const cloud = await localCloud(60_000);
    const heldNodes = await heldNode();
    await cloud.initialize(builder, new AbortController().signal);
    await cloud.loadBalancer().ensureLoadBalancer('kubernetes', service(), heldNodes);
    const inFlight = get('127.0.2.1', fx.svcPort);
    await waitFor(() => held!.requests === 1);
    let finished = false;
    const shutdown = cloud.shutdown(new AbortController().signal).then(() => {
      finished = true;
    });
    // New connections are refused while the held request is still open...
    expect((await failure(get('127.0.2.1', fx.svcPort))).code).toBe('ECONNREFUSED');
    expect(finished).toBe(false);
    // ...and the drain ends when it has finished, well before drainTimeout (60 s).
    held!.release();
    expect(await inFlight).toBe('held');
    await shutdown;
    expect(finished).toBe(true);
  });

  it("cuts connections still open when the manager's bound aborts the shutdown signal", async () => {
    const cloud = await localCloud(60_000);
    const heldNodes = await heldNode();
    await cloud.initialize(builder, new AbortController().signal);
    await cloud.loadBalancer().ensureLoadBalancer('kubernetes', service(), heldNodes);
    const inFlight = failure(get('127.0.2.1', fx.svcPort));
    await waitFor(() => held!.requests === 1);
    const bound = new AbortController();
    const shutdown = cloud.shutdown(bound.signal);
    expect((await failure(get('127.0.2.1', fx.svcPort))).code).toBe('ECONNREFUSED');
    bound.abort(new Error('provider shutdown timed out'));
    await shutdown;
    expect((await inFlight).code ?? (await inFlight).message).toMatch(/ECONNRESET|socket hang up/);
  });
});
