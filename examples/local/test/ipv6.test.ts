/**
 * The proxy over IPv6 for real. The machine's only IPv6 loopback address is `::1` (other IPv6 addresses
 * would need `ip addr add`), so the load balancer and the "node" share it, on different ports.
 */
import type { V1Node } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANNOTATION_SOURCE_RANGES } from '../src/annotations.js';
import { type DataPlaneFixture, dataPlaneFixture } from './data-plane-fixture.js';
import { lbService, nodeWith } from './fakes.js';
import { failure, fakeNode, freeTcpUdpPort, freeUdpPort, UdpClient, udpNode, loopbackConfig } from './loopback.js';
import { freePort, get } from './net.js';

let nodePort: number;
let fx: DataPlaneFixture;

beforeEach(async () => {
  nodePort = await freePort('::1');
  // One node with an address of each family; each family's server answers with its own name.
  const nodes = [await fakeNode('node-v6', '::1', nodePort), await fakeNode('node-v4', '127.0.1.1', nodePort)];
  fx = dataPlaneFixture(loopbackConfig, await freeTcpUdpPort('::1'));
  fx.defer(...nodes.map((n) => () => n.stop()));
});

afterEach(() => fx.close());

const dualNode: V1Node = nodeWith('n1', '127.0.1.1', '::1');

type ServiceSpec = NonNullable<Parameters<typeof lbService>[1]>['spec'];

function service(spec: ServiceSpec, annotations: Record<string, string> = {}) {
  return fx.store.put(
    lbService('web', {
      annotations,
      spec: { ports: [{ name: 'http', port: fx.svcPort, protocol: 'TCP', nodePort }], ...spec },
    }),
  );
}

describe('IPv6 on loopback', () => {
  it('serves an IPv6 load balancer on ::1, forwarding to the nodes’ IPv6 addresses', async () => {
    const status = await fx.lb.ensureLoadBalancer(
      'kubernetes',
      service({ ipFamilies: ['IPv6'], ipFamilyPolicy: 'SingleStack' }),
      [dualNode],
    );
    expect(status.ingress).toEqual([{ ip: '::1', ipMode: 'VIP' }]);
    expect(await get('::1', fx.svcPort)).toBe('node-v6');
  });

  it('serves both families of a RequireDualStack Service, each to the node address of its family', async () => {
    const svc = service({ ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack' });
    const status = await fx.lb.ensureLoadBalancer('kubernetes', svc, [dualNode]);
    expect(status.ingress).toEqual([
      { ip: '127.0.2.1', ipMode: 'VIP' },
      { ip: '::1', ipMode: 'VIP' },
    ]);
    expect([...fx.dataPlane.get(svc.metadata!.uid!)!.listeners().keys()]).toEqual([
      `127.0.2.1:${fx.svcPort}`,
      `[::1]:${fx.svcPort}`,
    ]);
    expect(await get('127.0.2.1', fx.svcPort)).toBe('node-v4');
    expect(await get('::1', fx.svcPort)).toBe('node-v6');
  });

  it('forwards across families to a node that has only the other family', async () => {
    await fx.lb.ensureLoadBalancer('kubernetes', service({ ipFamilies: ['IPv6'] }), [nodeWith('n4', '127.0.1.1')]);
    expect(await get('::1', fx.svcPort)).toBe('node-v4');
  });

  it('enforces IPv6 source ranges', async () => {
    const svc = service({ ipFamilies: ['IPv6'] }, { [ANNOTATION_SOURCE_RANGES]: 'fd00::/8' });
    await fx.lb.ensureLoadBalancer('kubernetes', svc, [dualNode]);
    const err = await failure(get('::1', fx.svcPort));
    expect(err.code ?? err.message).toMatch(/ECONNRESET|socket hang up/);
    const allowed = fx.store.put({ ...svc, spec: { ...svc.spec, loadBalancerSourceRanges: ['::1/128'] } });
    await fx.lb.ensureLoadBalancer('kubernetes', allowed, [dualNode]);
    expect(await get('::1', fx.svcPort)).toBe('node-v6');
  });

  it('balances UDP over IPv6', async () => {
    const udpNodePort = await freeUdpPort('::1');
    const node = await udpNode('udp-v6', '::1', udpNodePort);
    const client = await UdpClient.open('udp6');
    fx.defer(
      () => node.close(),
      () => client.close(),
    );
    const svc = service({
      ipFamilies: ['IPv6'],
      ports: [{ name: 'dns', port: fx.svcPort, protocol: 'UDP', nodePort: udpNodePort }],
    });
    await fx.lb.ensureLoadBalancer('kubernetes', svc, [dualNode]);
    expect(await client.ask('::1', fx.svcPort, 'q6')).toBe('udp-v6:q6');
  });
});
