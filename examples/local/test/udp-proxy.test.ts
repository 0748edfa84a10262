/**
 * UDP load balancing for real, on loopback: UDP servers on 127.0.1.x stand in for the nodes' node ports and
 * answer `<node>:<datagram>`; clients send datagrams to the allocated address.
 */
import type { V1Node, V1Service } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANNOTATION_ALGORITHM, ANNOTATION_SOURCE_RANGES, ANNOTATION_UDP_IDLE_TIMEOUT } from '../src/annotations.js';
import type { UdpProxy } from '../src/proxy/udp-proxy.js';
import { type DataPlaneFixture, dataPlaneFixture } from './data-plane-fixture.js';
import { lbService, nodeWith } from './fakes.js';
import { fakeNode, freeTcpUdpPort, freeUdpPort, loopbackConfig, UdpClient, udpNode, waitFor } from './loopback.js';
import { freePort, get } from './net.js';

type UdpNode = Awaited<ReturnType<typeof udpNode>>;
let nodes: UdpNode[];
let nodePort: number;
let k8sNodes: V1Node[];
let fx: DataPlaneFixture;

beforeEach(async () => {
  nodePort = await freeUdpPort('127.0.1.1');
  nodes = [];
  for (const [i, name] of ['n1', 'n2', 'n3'].entries()) nodes.push(await udpNode(name, `127.0.1.${i + 1}`, nodePort));
  k8sNodes = ['n1', 'n2', 'n3'].map((n, i) => nodeWith(n, `127.0.1.${i + 1}`));
  fx = dataPlaneFixture(loopbackConfig, await freeUdpPort('127.0.2.1'));
  // The nodes left at the end (a test may close and drop one).
  fx.defer(() => Promise.all(nodes.map((n) => n.close())));
});

afterEach(() => fx.close());

async function client(localAddress?: string): Promise<UdpClient> {
  const c = await UdpClient.open('udp4', localAddress);
  fx.defer(() => c.close());
  return c;
}

function service(annotations: Record<string, string> = {}, ports?: NonNullable<V1Service['spec']>['ports']) {
  return fx.store.put(
    lbService('dns', {
      annotations,
      spec: { ports: ports ?? [{ name: 'dns', port: fx.svcPort, protocol: 'UDP', nodePort }] },
    }),
  );
}

function udpListener(svc: V1Service): UdpProxy {
  const listener = [...fx.dataPlane.get(svc.metadata!.uid!)!.listeners().values()].find((l) => l.protocol === 'UDP');
  return listener as UdpProxy;
}

const nodeOf = (reply: string) => reply.split(':')[0];

describe('UDP load balancing on loopback', () => {
  it('keeps a flow on one node and spreads new flows round robin', async () => {
    const status = await fx.lb.ensureLoadBalancer('kubernetes', service(), k8sNodes);
    expect(status.ingress).toEqual([{ ip: '127.0.2.1', ipMode: 'VIP' }]);
    const seen: string[] = [];
    for (let c = 0; c < 3; c++) {
      const flow = await client();
      const replies = [];
      for (let i = 0; i < 3; i++) replies.push(await flow.ask('127.0.2.1', fx.svcPort, `q${i}`));
      // Every datagram of one flow reaches the same node, and each reply carries the datagram sent.
      expect(new Set(replies.map(nodeOf)).size).toBe(1);
      expect(replies.map((r) => r.split(':')[1])).toEqual(['q0', 'q1', 'q2']);
      seen.push(nodeOf(replies[0]!)!);
    }
    expect([...seen].sort()).toEqual(['n1', 'n2', 'n3']);
    const listener = udpListener(fx.store.stored('default', 'dns')!);
    expect(listener.stats).toMatchObject({ accepted: 3, active: 3 });
  });

  it('closes idle flows; the next datagram opens a new flow', async () => {
    const svc = service({ [ANNOTATION_UDP_IDLE_TIMEOUT]: '200ms' });
    await fx.lb.ensureLoadBalancer('kubernetes', svc, k8sNodes);
    const listener = udpListener(svc);
    const flow = await client();
    const first = nodeOf(await flow.ask('127.0.2.1', fx.svcPort, 'a'));
    expect(listener.stats.accepted).toBe(1);
    await waitFor(() => listener.stats.active === 0);
    // Round robin moves the new flow of the same client to the next node.
    const second = nodeOf(await flow.ask('127.0.2.1', fx.svcPort, 'b'));
    expect(listener.stats.accepted).toBe(2);
    expect(second).not.toBe(first);
  });

  it('pins a client address with source-hash', async () => {
    await fx.lb.ensureLoadBalancer('kubernetes', service({ [ANNOTATION_ALGORITHM]: 'source-hash' }), k8sNodes);
    const byClient = new Map<string, Set<string>>();
    for (let c = 10; c < 16; c++) {
      const address = `127.0.0.${c}`;
      const seen = new Set<string>();
      for (let i = 0; i < 2; i++) seen.add(nodeOf(await (await client(address)).ask('127.0.2.1', fx.svcPort, 'x'))!);
      byClient.set(address, seen);
    }
    for (const seen of byClient.values()) expect(seen.size).toBe(1);
    expect(new Set([...byClient.values()].flatMap((s) => [...s])).size).toBeGreaterThan(1);
  });

  it('drops datagrams from outside the source ranges', async () => {
    const svc = service({ [ANNOTATION_SOURCE_RANGES]: '127.0.0.5/32' });
    await fx.lb.ensureLoadBalancer('kubernetes', svc, k8sNodes);
    expect(nodeOf(await (await client('127.0.0.5')).ask('127.0.2.1', fx.svcPort, 'in'))).toMatch(/^n\d$/);
    await expect((await client('127.0.0.6')).ask('127.0.2.1', fx.svcPort, 'out', 500)).rejects.toThrow(/no UDP reply/);
    expect(udpListener(svc).stats.rejected).toBe(1);
    expect(nodes.reduce((n, x) => n + x.received, 0)).toBe(1);
  });

  it('ends a flow whose node refuses (ICMP port unreachable); the next flow goes to another node', async () => {
    const svc = service();
    await fx.lb.ensureLoadBalancer('kubernetes', svc, [k8sNodes[0]!, k8sNodes[1]!]);
    await nodes[0]!.close();
    nodes.shift();
    const listener = udpListener(svc);
    const flow = await client();
    // The first flow goes to n1, which is gone: the datagram is lost and the flow ends on the error.
    await expect(flow.ask('127.0.2.1', fx.svcPort, 'lost', 1_000)).rejects.toThrow(/no UDP reply/);
    await waitFor(() => listener.stats.connectFailures === 1 && listener.stats.active === 0);
    expect(nodeOf(await flow.ask('127.0.2.1', fx.svcPort, 'again'))).toBe('n2');
  });

  it('updateLoadBalancer ends flows to removed nodes and keeps the others', async () => {
    const svc = service();
    await fx.lb.ensureLoadBalancer('kubernetes', svc, k8sNodes);
    const flows = [await client(), await client(), await client()];
    const before = await Promise.all(flows.map(async (f) => nodeOf(await f.ask('127.0.2.1', fx.svcPort, 'a'))));
    await fx.lb.updateLoadBalancer('kubernetes', svc, [k8sNodes[0]!, k8sNodes[1]!]);
    const listener = udpListener(svc);
    expect(listener.stats.active).toBe(2);
    const after = await Promise.all(flows.map(async (f) => nodeOf(await f.ask('127.0.2.1', fx.svcPort, 'b'))));
    for (const [i, node] of before.entries()) {
      if (node === 'n3') expect(after[i]).not.toBe('n3');
      else expect(after[i]).toBe(node);
    }
  });

  it('serves TCP and UDP on the same port of one Service', async () => {
    const tcpPort = await freePort('127.0.1.1');
    const port = await freeTcpUdpPort('127.0.2.1');
    const http = await fakeNode('web', '127.0.1.1', tcpPort);
    try {
      const svc = fx.store.put(
        lbService('both', {
          spec: {
            ports: [
              { name: 'tcp', port, protocol: 'TCP', nodePort: tcpPort },
              { name: 'udp', port, protocol: 'UDP', nodePort },
            ],
          },
        }),
      );
      await fx.lb.ensureLoadBalancer('kubernetes', svc, [k8sNodes[0]!]);
      expect([...fx.dataPlane.get(svc.metadata!.uid!)!.listeners().keys()].sort()).toEqual([
        `127.0.2.1:${port}`,
        `127.0.2.1:${port}/UDP`,
      ]);
      expect(await get('127.0.2.1', port)).toBe('web');
      expect(await (await client()).ask('127.0.2.1', port, 'q')).toBe('n1:q');
    } finally {
      await http.stop();
    }
  });
});
