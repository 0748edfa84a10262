/**
 * The data plane end to end: ccm-kit's manager (in process) with the `local` provider against a real
 * kube-apiserver, which allocates the node ports and the `healthCheckNodePort` of a Service with
 * `externalTrafficPolicy: Local`. HTTP servers on 127.0.1.x play kube-proxy's health-check server, TCP and UDP
 * servers the node ports. Checked: only the node with a ready endpoint receives TCP connections and UDP flows,
 * the TCP backend receives a PROXY protocol header, the status says `ipMode: Proxy`, and stopping the manager
 * awaits the drain of an open connection through the provider's shutdown hook.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoreV1Api, type V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ANNOTATION_PROXY_PROTOCOL } from '../src/annotations.js';
import { registerNodes, startLocalManager } from './cluster.js';
import { freeTcpUdpPort, kubeProxyHealth, UdpClient, udpNode } from './loopback.js';

const cp = useControlPlane();
let dir: string;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccm-local-dp-'));
});
afterAll(async () => {
  await Promise.all(cleanups.map((c) => c()));
  await rm(dir, { recursive: true, force: true });
});

/**
 * A TCP node port on ip:port: answers `<name> <first line received>` (the PROXY header line) once released
 * (`hold` keeps answers back until {@link release}).
 */
async function tcpNode(name: string, ip: string, port: number) {
  let released = true;
  const waiting: (() => void)[] = [];
  const node = {
    connections: 0,
    hold() {
      released = false;
    },
    release() {
      released = true;
      for (const answer of waiting.splice(0)) answer();
    },
  };
  const server: Server = createServer((socket) => {
    node.connections++;
    let data = '';
    socket.on('data', (c) => {
      data += c.toString('latin1');
      const eol = data.indexOf('\r\n');
      if (eol < 0) return;
      const answer = () => socket.end(`${name} ${data.slice(0, eol)}`);
      if (released) answer();
      else waiting.push(answer);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(port, ip, r));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return node;
}

/** Connects to ip:port, sends a line, resolves the whole answer. */
function ask(ip: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: ip, port }, () => socket.write('hello\r\n'));
    let body = '';
    socket.on('data', (c) => {
      body += c.toString('latin1');
    });
    socket.on('end', () => resolve(body));
    socket.on('error', reject);
  });
}

it('serves TCP and UDP to the nodes with a ready endpoint, with PROXY protocol, and drains on stop', async () => {
  await writeFile(
    join(dir, 'inventory.yaml'),
    `machines:
  - name: node-a
    addresses: [{ type: InternalIP, address: 127.0.1.1 }]
  - name: node-b
    addresses: [{ type: InternalIP, address: 127.0.1.2 }]
`,
  );
  const configPath = join(dir, 'cloud.yaml');
  await writeFile(
    configPath,
    `clusterID: dp
inventory: ${join(dir, 'inventory.yaml')}
healthCheckInterval: 1s
drainTimeout: 2m
pools:
  - name: global
    addresses: [127.0.5.0/24]
`,
  );
  const ccm = await startLocalManager(configPath, cp().kubeConfig, { providerShutdownTimeoutMs: 120_000 });
  let stopped = false;
  try {
    const api = cp().kubeConfig.makeApiClient(CoreV1Api);
    await registerNodes(api, [
      ['node-a', 'True'],
      ['node-b', 'True'],
    ]);
    await eventuallyValue(
      async () => {
        const list = await api.listNode();
        return list.items.every((n) => n.status?.addresses?.length) && list.items.length === 2;
      },
      { what: 'the Nodes initialized', timeoutMs: 60_000 },
    );

    const port = await freeTcpUdpPort('127.0.5.1');
    const created: V1Service = await api.createNamespacedService({
      namespace: 'default',
      body: {
        metadata: { name: 'mixed', annotations: { [ANNOTATION_PROXY_PROTOCOL]: 'v1' } },
        spec: {
          type: 'LoadBalancer',
          externalTrafficPolicy: 'Local',
          ports: [
            { name: 'tcp', port, protocol: 'TCP' },
            { name: 'udp', port, protocol: 'UDP' },
          ],
        },
      },
    });
    // The API server allocated the health-check node port (and the node ports).
    const hcPort = created.spec?.healthCheckNodePort as number;
    expect(hcPort).toBeGreaterThan(0);
    const [tcpNodePort, udpNodePort] = (created.spec?.ports ?? []).map((p) => p.nodePort as number);
    // kube-proxy on node-a has a ready endpoint of the Service, on node-b none.
    for (const [ip, endpoints] of [
      ['127.0.1.1', 1],
      ['127.0.1.2', 0],
    ] as const) {
      const health = await kubeProxyHealth(ip, hcPort, endpoints);
      cleanups.push(() => health.close());
      const udp = await udpNode(ip, ip, udpNodePort!);
      cleanups.push(() => udp.close());
    }
    const nodeA = await tcpNode('a', '127.0.1.1', tcpNodePort!);
    const nodeB = await tcpNode('b', '127.0.1.2', tcpNodePort!);

    const svc = await eventuallyValue(
      async () => {
        const s = await api.readNamespacedService({ namespace: 'default', name: 'mixed' });
        return s.status?.loadBalancer?.ingress?.length ? s : undefined;
      },
      { what: 'the load-balancer status', timeoutMs: 60_000 },
    );
    expect(svc.status?.loadBalancer?.ingress).toEqual([{ ip: '127.0.5.1', ipMode: 'Proxy' }]);

    // The first health verdicts may predate the servers above: wait for node-a to be in rotation.
    await eventuallyValue(async () => (await ask('127.0.5.1', port)).startsWith('a '), {
      what: 'node-a in rotation',
      timeoutMs: 60_000,
    });
    const before = nodeA.connections;
    // TCP: only node-a, and it reads the PROXY v1 line naming the client and the load balancer first.
    const answers = await Promise.all([0, 1, 2, 3].map(() => ask('127.0.5.1', port)));
    for (const answer of answers)
      expect(answer).toMatch(new RegExp(`^a PROXY TCP4 127\\.0\\.0\\.1 127\\.0\\.5\\.1 \\d+ ${port}$`));
    expect(nodeB.connections).toBe(0);
    // UDP: every flow goes to node-a.
    for (let i = 0; i < 4; i++) {
      const client = await UdpClient.open();
      cleanups.push(() => client.close());
      expect(await client.ask('127.0.5.1', port, `q${i}`)).toBe(`127.0.1.1:q${i}`);
    }

    // Stop: the manager awaits the provider's shutdown hook, which drains the open connection.
    nodeA.hold();
    const open = ask('127.0.5.1', port);
    await eventuallyValue(async () => nodeA.connections === before + 5, {
      what: 'the held connection at node-a',
      timeoutMs: 60_000,
    });
    const stopping = ccm.stop().then(() => {
      stopped = true;
    });
    await eventuallyValue(
      async () =>
        ask('127.0.5.1', port).then(
          () => false,
          (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED',
        ),
      { what: 'the listener to stop accepting', timeoutMs: 60_000 },
    );
    expect(stopped).toBe(false); // still draining the open connection
    nodeA.release();
    expect(await open).toMatch(/^a PROXY TCP4 /);
    await stopping;
    expect(stopped).toBe(true);
  } finally {
    if (!stopped) await ccm.stop();
    await ccm.done;
  }
}, 180_000);
