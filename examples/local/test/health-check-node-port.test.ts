/**
 * `externalTrafficPolicy: Local` for real, on loopback: HTTP servers on 127.0.1.x play kube-proxy's
 * health-check server on the Service's `healthCheckNodePort` (200 with local endpoints, 503 without); only
 * nodes that pass receive new connections and UDP flows.
 */
import type { V1Node } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANNOTATION_HEALTH_CHECK_INTERVAL } from '../src/annotations.js';
import { type DataPlaneFixture, dataPlaneFixture } from './data-plane-fixture.js';
import { lbService, nodeWith } from './fakes.js';
import {
  type FakeNode,
  fakeNode,
  freeTcpUdpPort,
  freeUdpPort,
  kubeProxyHealth,
  UdpClient,
  udpNode,
  waitFor,
  loopbackConfig,
} from './loopback.js';
import { freePort, get } from './net.js';

type Health = Awaited<ReturnType<typeof kubeProxyHealth>>;
let nodes: FakeNode[];
let health: Health[];
let hcPort: number;
let k8sNodes: V1Node[];
let fx: DataPlaneFixture;

beforeEach(async () => {
  const nodePort = await freePort('127.0.1.1');
  hcPort = await freePort('127.0.1.1');
  nodes = [];
  health = [];
  // n1 and n3 run a ready endpoint of the Service; n2 has none.
  for (const [i, [name, endpoints]] of (
    [
      ['n1', 1],
      ['n2', 0],
      ['n3', 2],
    ] as const
  ).entries()) {
    nodes.push(await fakeNode(name, `127.0.1.${i + 1}`, nodePort));
    health.push(await kubeProxyHealth(`127.0.1.${i + 1}`, hcPort, endpoints));
  }
  k8sNodes = nodes.map((n) => nodeWith(n.name, n.ip));
  fx = dataPlaneFixture(loopbackConfig, await freeTcpUdpPort('127.0.2.1'));
  fx.defer(...nodes.map((n) => () => n.stop()), ...health.map((h) => () => h.close()));
});

afterEach(() => fx.close());

function localService(extraPorts: { name: string; port: number; protocol: string; nodePort: number }[] = []) {
  return fx.store.put(
    lbService('web', {
      // A probe times out after min(interval, 2 s): 1 s leaves room on a loaded machine.
      annotations: { [ANNOTATION_HEALTH_CHECK_INTERVAL]: '1s' },
      spec: {
        externalTrafficPolicy: 'Local',
        healthCheckNodePort: hcPort,
        ports: [{ name: 'http', port: fx.svcPort, protocol: 'TCP', nodePort: nodes[0]!.port }, ...extraPorts],
      },
    }),
  );
}

async function sequence(n: number): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) seen.add(await get('127.0.2.1', fx.svcPort));
  return seen;
}

describe('externalTrafficPolicy: Local on loopback', () => {
  it('sends connections only to nodes whose health-check node port answers 200, from the first one on', async () => {
    const svc = localService();
    await fx.lb.ensureLoadBalancer('kubernetes', svc, k8sNodes);
    // ensureLoadBalancer waited for the first verdicts: n2 (503) never gets a connection.
    expect(await sequence(6)).toEqual(new Set(['n1', 'n3']));
    expect(nodes[1]!.hits).toBe(0);
    const proxy = fx.dataPlane.get(svc.metadata!.uid!)!;
    expect(proxy.health.snapshot()).toEqual({
      [`127.0.1.1:${hcPort}`]: true,
      [`127.0.1.2:${hcPort}`]: false,
      [`127.0.1.3:${hcPort}`]: true,
    });
    // The node ports themselves are not probed: only kube-proxy's verdict counts.
    expect(health.every((h) => h.probes > 0)).toBe(true);
  });

  it('follows endpoints moving between nodes', async () => {
    const svc = localService();
    await fx.lb.ensureLoadBalancer('kubernetes', svc, k8sNodes);
    const proxy = fx.dataPlane.get(svc.metadata!.uid!)!;
    health[0]!.localEndpoints = 0; // the Pod on n1 went away...
    health[1]!.localEndpoints = 1; // ...and one became ready on n2
    await waitFor(
      () =>
        proxy.health.snapshot()[`127.0.1.1:${hcPort}`] === false &&
        proxy.health.snapshot()[`127.0.1.2:${hcPort}`] === true,
    );
    expect(await sequence(6)).toEqual(new Set(['n2', 'n3']));
  });

  it('takes a node whose kube-proxy does not answer out of rotation', async () => {
    const svc = localService();
    await fx.lb.ensureLoadBalancer('kubernetes', svc, k8sNodes);
    const proxy = fx.dataPlane.get(svc.metadata!.uid!)!;
    await health[2]!.close();
    await waitFor(() => proxy.health.snapshot()[`127.0.1.3:${hcPort}`] === false);
    expect(await sequence(4)).toEqual(new Set(['n1']));
  });

  it('checks a node added by updateLoadBalancer before it receives traffic', async () => {
    const svc = localService();
    await fx.lb.ensureLoadBalancer('kubernetes', svc, [k8sNodes[1]!]);
    const fourth = await fakeNode('n4', '127.0.1.4', nodes[0]!.port);
    const fourthHealth = await kubeProxyHealth('127.0.1.4', hcPort, 1);
    fx.defer(
      () => fourth.stop(),
      () => fourthHealth.close(),
    );
    await fx.lb.updateLoadBalancer('kubernetes', svc, [k8sNodes[1]!, nodeWith('n4', '127.0.1.4')]);
    expect(await sequence(4)).toEqual(new Set(['n4']));
  });

  it('applies to UDP ports too', async () => {
    const udpNodePort = await freeUdpPort('127.0.1.1');
    for (const [i, name] of ['n1', 'n2', 'n3'].entries()) {
      const node = await udpNode(name, `127.0.1.${i + 1}`, udpNodePort);
      fx.defer(() => node.close());
    }
    const svc = localService([{ name: 'dns', port: fx.svcPort, protocol: 'UDP', nodePort: udpNodePort }]);
    await fx.lb.ensureLoadBalancer('kubernetes', svc, k8sNodes);
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const client = await UdpClient.open();
      fx.defer(() => client.close());
      seen.add((await client.ask('127.0.2.1', fx.svcPort, 'q')).split(':')[0]!);
    }
    expect(seen).toEqual(new Set(['n1', 'n3']));
    // A flow on a node that loses its endpoint moves at its next datagram.
    const flow = await UdpClient.open();
    fx.defer(() => flow.close());
    const first = (await flow.ask('127.0.2.1', fx.svcPort, 'a')).split(':')[0]!;
    const index = first === 'n1' ? 0 : 2;
    health[index]!.localEndpoints = 0;
    const proxy = fx.dataPlane.get(svc.metadata!.uid!)!;
    await waitFor(() => proxy.health.snapshot()[`127.0.1.${index + 1}:${hcPort}`] === false);
    expect((await flow.ask('127.0.2.1', fx.svcPort, 'b')).split(':')[0]).toBe(first === 'n1' ? 'n3' : 'n1');
  });
});
