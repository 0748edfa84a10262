/**
 * Source ranges end to end: ccm-kit's manager (in process) with the `local` provider (proxy data plane, which
 * declares `loadBalancerSourceRanges` supported) against a real kube-apiserver. A Service with
 * `spec.loadBalancerSourceRanges: [127.0.0.2/32]` gets its load balancer (no `UnsupportedServiceField` Warning),
 * and real connections prove the proxies enforce the ranges: a TCP client and a UDP client bound to 127.0.0.2
 * are served, the same bound to 127.0.0.3 are refused (disconnected; datagrams dropped) and never reach a node.
 * Changing the ranges in the Service moves the permission to 127.0.0.3.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { patchOptions } from '@ccm-kit/runtime/client';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { registerNodes, startLocalManager } from './cluster.js';
import { failure, fakeNode, freeTcpUdpPort, UdpClient, udpNode } from './loopback.js';
import { get } from './net.js';

const cp = useControlPlane();
let dir: string;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ccm-local-ranges-'));
});
afterAll(async () => {
  await Promise.all(cleanups.map((c) => c()));
  await rm(dir, { recursive: true, force: true });
});

const LB = '127.0.7.1';
const ALLOWED = '127.0.0.2';
const REFUSED = '127.0.0.3';

/** A UDP client bound to `address`; closed after the file. */
async function udpFrom(address: string): Promise<UdpClient> {
  const client = await UdpClient.open('udp4', address);
  cleanups.push(() => client.close());
  return client;
}

it('enforces spec.loadBalancerSourceRanges on real TCP connections and UDP datagrams, and follows a change', async () => {
  await writeFile(
    join(dir, 'inventory.yaml'),
    `machines:
  - name: node-a
    addresses: [{ type: InternalIP, address: 127.0.1.31 }]
  - name: node-b
    addresses: [{ type: InternalIP, address: 127.0.1.32 }]
`,
  );
  const configPath = join(dir, 'cloud.yaml');
  await writeFile(
    configPath,
    `clusterID: ranges
inventory: ${join(dir, 'inventory.yaml')}
healthCheckInterval: 1s
pools:
  - name: global
    addresses: [127.0.7.0/24]
`,
  );
  const ccm = await startLocalManager(configPath, cp().kubeConfig);
  try {
    const api = cp().kubeConfig.makeApiClient(CoreV1Api);
    await registerNodes(api, [
      ['node-a', 'True'],
      ['node-b', 'True'],
    ]);
    const port = await freeTcpUdpPort(LB);
    const created = await api.createNamespacedService({
      namespace: 'default',
      body: {
        metadata: { name: 'ranged' },
        spec: {
          type: 'LoadBalancer',
          loadBalancerSourceRanges: [`${ALLOWED}/32`],
          ports: [
            { name: 'tcp', port, protocol: 'TCP' },
            { name: 'udp', port, protocol: 'UDP' },
          ],
        },
      },
    });
    const [tcpNodePort, udpNodePort] = (created.spec?.ports ?? []).map((p) => p.nodePort as number);
    const tcpNodes = [await fakeNode('a', '127.0.1.31', tcpNodePort!), await fakeNode('b', '127.0.1.32', tcpNodePort!)];
    cleanups.push(...tcpNodes.map((n) => () => n.stop()));
    const udpNodes = [await udpNode('a', '127.0.1.31', udpNodePort!), await udpNode('b', '127.0.1.32', udpNodePort!)];
    cleanups.push(...udpNodes.map((n) => () => n.close()));

    const svc = await eventuallyValue(
      async () => {
        const s = await api.readNamespacedService({ namespace: 'default', name: 'ranged' });
        return s.status?.loadBalancer?.ingress?.length ? s : undefined;
      },
      { what: 'the load-balancer status', timeoutMs: 60_000 },
    );
    expect(svc.status?.loadBalancer?.ingress).toEqual([{ ip: LB, ipMode: 'VIP' }]);
    const events = await api.listNamespacedEvent({ namespace: 'default' });
    expect(events.items.filter((e) => e.reason === 'UnsupportedServiceField')).toEqual([]);

    // TCP: the allowed source is served by a node; the refused one is disconnected before reaching any node.
    // The ingress can be written while the controller's next host update still reconfigures the proxy: wait until
    // the allowed source is served, then check the refused one.
    expect(
      await eventuallyValue(
        async () =>
          get(LB, port, { localAddress: ALLOWED }).then(
            (body) => body,
            () => undefined,
          ),
        { what: `${ALLOWED} served`, timeoutMs: 30_000 },
      ),
    ).toMatch(/^[ab]$/);
    const hitsBefore = tcpNodes.reduce((n, x) => n + x.hits, 0);
    const refused = await failure(get(LB, port, { localAddress: REFUSED }));
    expect(refused.code ?? refused.message).toMatch(/ECONNRESET|socket hang up/);
    expect(tcpNodes.reduce((n, x) => n + x.hits, 0)).toBe(hitsBefore);
    // UDP: the allowed source gets an answer from a node; the refused one's datagram is dropped.
    expect(await (await udpFrom(ALLOWED)).ask(LB, port, 'in')).toMatch(/^[ab]:in$/);
    const udpBefore = udpNodes.reduce((n, x) => n + x.received, 0);
    await expect((await udpFrom(REFUSED)).ask(LB, port, 'out', 500)).rejects.toThrow(/no UDP reply/);
    expect(udpNodes.reduce((n, x) => n + x.received, 0)).toBe(udpBefore);

    // A change of the ranges reaches the proxies through the controller.
    await api.patchNamespacedService(
      { namespace: 'default', name: 'ranged', body: { spec: { loadBalancerSourceRanges: [`${REFUSED}/32`] } } },
      patchOptions('merge'),
    );
    await eventuallyValue(
      async () =>
        get(LB, port, { localAddress: REFUSED }).then(
          (body) => /^[ab]$/.test(body),
          () => false,
        ),
      { what: `${REFUSED} allowed after the change`, timeoutMs: 60_000 },
    );
    await failure(get(LB, port, { localAddress: ALLOWED }));
  } finally {
    await ccm.stop();
    await ccm.done;
  }
}, 180_000);
