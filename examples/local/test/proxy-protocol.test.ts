/**
 * PROXY protocol toward the backends: the exact header bytes (HAProxy spec), and for real on loopback, with
 * backends that decode the header with an independent parser (proxy-protocol-js) and answer what they read.
 */
import { connect, createServer, type Server } from 'node:net';
import type { V1Node } from '@kubernetes/client-node';
import { V1ProxyProtocol, V2ProxyProtocol } from 'proxy-protocol-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANNOTATION_IPS, ANNOTATION_PROXY_PROTOCOL } from '../src/annotations.js';
import { canonicalIP } from '../src/ip.js';
import { proxyProtocolHeader } from '../src/proxy/proxy-protocol.js';
import { type DataPlaneFixture, dataPlaneFixture } from './data-plane-fixture.js';
import { lbService, nodeWith } from './fakes.js';
import { loopbackConfig } from './loopback.js';
import { freePort } from './net.js';

describe('proxyProtocolHeader', () => {
  it('writes the v1 text line for IPv4 and IPv6', () => {
    expect(
      proxyProtocolHeader(
        'v1',
        { address: '192.168.0.1', port: 56324 },
        { address: '192.168.0.11', port: 443 },
      ).toString(),
    ).toBe('PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n');
    expect(proxyProtocolHeader('v1', { address: 'FD00::0001', port: 1 }, { address: '::1', port: 2 }).toString()).toBe(
      'PROXY TCP6 fd00::1 ::1 1 2\r\n',
    );
    // Node reports IPv4 peers of dual-stack sockets as IPv4-mapped IPv6: they are IPv4.
    expect(
      proxyProtocolHeader('v1', { address: '::ffff:127.0.0.1', port: 1 }, { address: '127.0.2.1', port: 2 }).toString(),
    ).toBe('PROXY TCP4 127.0.0.1 127.0.2.1 1 2\r\n');
  });

  it('writes the v2 binary header: signature, PROXY command, TCP over IPv4 / IPv6, addresses and ports', () => {
    const v4 = proxyProtocolHeader('v2', { address: '127.0.0.1', port: 12345 }, { address: '192.0.2.1', port: 54321 });
    expect([...v4]).toEqual([
      0x0d,
      0x0a,
      0x0d,
      0x0a,
      0x00,
      0x0d,
      0x0a,
      0x51,
      0x55,
      0x49,
      0x54,
      0x0a, // signature
      0x21, // version 2, PROXY
      0x11, // AF_INET, STREAM
      0x00,
      0x0c, // 12 address bytes
      127,
      0,
      0,
      1,
      192,
      0,
      2,
      1,
      0x30,
      0x39,
      0xd4,
      0x31,
    ]);
    const v6 = proxyProtocolHeader('v2', { address: 'fd00::1', port: 1 }, { address: '::1', port: 2 });
    expect(v6.length).toBe(16 + 36);
    expect([...v6.subarray(12, 16)]).toEqual([0x21, 0x21, 0x00, 0x24]);
    expect([...v6.subarray(16, 18)]).toEqual([0xfd, 0x00]);
    expect(v6[47]).toBe(1); // last byte of ::1
  });

  it('refuses mixed families and non-addresses', () => {
    expect(() => proxyProtocolHeader('v1', { address: '::1', port: 1 }, { address: '127.0.0.1', port: 2 })).toThrow(
      'PROXY protocol: ::1 and 127.0.0.1 differ in family',
    );
    expect(() => proxyProtocolHeader('v2', { address: 'x', port: 1 }, { address: '::1', port: 2 })).toThrow(
      'PROXY protocol: "x" is not an IP address',
    );
  });
});

/** What a backend decoded from the bytes it received. */
interface Decoded {
  version: 'v1' | 'v2' | 'none';
  source?: string;
  sourcePort?: number;
  destination?: string;
  destinationPort?: number;
  payload: string;
}

const bytesToIP = (bytes: readonly number[]) =>
  bytes.length === 4
    ? bytes.join('.')
    : canonicalIP(
        Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16)).join(':'),
      );

/** Decodes a PROXY header (if any) with proxy-protocol-js, then the payload. */
function decode(data: Buffer): Decoded {
  if (data.subarray(0, 6).toString('latin1') === 'PROXY ') {
    const p = V1ProxyProtocol.parse(data.toString('latin1'));
    return {
      version: 'v1',
      source: p.source.ipAddress,
      sourcePort: p.source.port,
      destination: p.destination.ipAddress,
      destinationPort: p.destination.port,
      payload: p.data ?? '',
    };
  }
  if (data[0] === 0x0d && data[12] === 0x21) {
    const p = V2ProxyProtocol.parse(new Uint8Array(data));
    const a = p.proxyAddress as unknown as {
      sourceAddress: { address: number[] };
      sourcePort: number;
      destinationAddress: { address: number[] };
      destinationPort: number;
    };
    return {
      version: 'v2',
      source: bytesToIP(a.sourceAddress.address),
      sourcePort: a.sourcePort,
      destination: bytesToIP(a.destinationAddress.address),
      destinationPort: a.destinationPort,
      payload: Buffer.from(p.data ?? new Uint8Array()).toString(),
    };
  }
  return { version: 'none', payload: data.toString() };
}

/** A backend on ip:port that reads until the client's FIN and answers what it decoded, as JSON. */
async function decodingBackend(ip: string, port: number): Promise<Server> {
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => socket.end(JSON.stringify(decode(Buffer.concat(chunks)))));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, ip, () => resolve());
  });
  return server;
}

/** Sends `payload` to ip:port from `localAddress`, half-closes, resolves the answer and the local port. */
function exchange(
  ip: string,
  port: number,
  payload: string,
  localAddress?: string,
): Promise<{ answer: Decoded; localPort: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: ip,
      port,
      allowHalfOpen: true,
      ...(localAddress ? { localAddress } : {}),
    });
    let body = '';
    let localPort = 0;
    socket.on('connect', () => {
      localPort = socket.localPort ?? 0;
      socket.end(payload);
    });
    socket.on('data', (c) => {
      body += c.toString();
    });
    socket.on('end', () => {
      try {
        resolve({ answer: JSON.parse(body) as Decoded, localPort });
      } catch (err) {
        reject(err);
      }
    });
    socket.on('error', reject);
  });
}

let nodePort: number;
let k8sNodes: V1Node[];
let fx: DataPlaneFixture;

beforeEach(async () => {
  nodePort = await freePort('127.0.1.1');
  const backend = await decodingBackend('127.0.1.1', nodePort);
  k8sNodes = [nodeWith('n1', '127.0.1.1')];
  fx = dataPlaneFixture(loopbackConfig, await freePort('127.0.2.1'));
  fx.defer(() => new Promise((r) => backend.close(r)));
});

afterEach(() => fx.close());

type ServiceSpec = NonNullable<Parameters<typeof lbService>[1]>['spec'];

function service(annotations: Record<string, string>, spec: ServiceSpec = {}) {
  return fx.store.put(
    lbService('web', {
      annotations,
      spec: { ports: [{ name: 'tcp', port: fx.svcPort, protocol: 'TCP', nodePort }], ...spec },
    }),
  );
}

describe('PROXY protocol on loopback', () => {
  for (const version of ['v1', 'v2'] as const) {
    it(`sends a ${version} header naming the client and the load balancer, then the client's bytes`, async () => {
      const status = await fx.lb.ensureLoadBalancer(
        'kubernetes',
        service({ [ANNOTATION_PROXY_PROTOCOL]: version }),
        k8sNodes,
      );
      expect(status.ingress).toEqual([{ ip: '127.0.2.1', ipMode: 'Proxy' }]);
      const { answer, localPort } = await exchange('127.0.2.1', fx.svcPort, 'hello', '127.0.0.7');
      expect(answer).toEqual({
        version,
        source: '127.0.0.7',
        sourcePort: localPort,
        destination: '127.0.2.1',
        destinationPort: fx.svcPort,
        payload: 'hello',
      });
    });
  }

  it('sends no header without the annotation, and can be switched on in place', async () => {
    const svc = service({});
    const status = await fx.lb.ensureLoadBalancer('kubernetes', svc, k8sNodes);
    expect(status.ingress).toEqual([{ ip: '127.0.2.1', ipMode: 'VIP' }]);
    expect((await exchange('127.0.2.1', fx.svcPort, 'plain')).answer).toEqual({
      version: 'none',
      payload: 'plain',
    });
    const listener = [...fx.dataPlane.get(svc.metadata!.uid!)!.listeners().values()][0];
    const on = fx.store.put({
      ...svc,
      metadata: {
        ...svc.metadata,
        annotations: { ...svc.metadata?.annotations, [ANNOTATION_PROXY_PROTOCOL]: 'v2' },
      },
    });
    await fx.lb.ensureLoadBalancer('kubernetes', on, k8sNodes);
    expect([...fx.dataPlane.get(svc.metadata!.uid!)!.listeners().values()][0]).toBe(listener);
    expect((await exchange('127.0.2.1', fx.svcPort, 'x')).answer.version).toBe('v2');
    expect((await fx.lb.getLoadBalancer('kubernetes', on))?.ingress).toEqual([{ ip: '127.0.2.1', ipMode: 'Proxy' }]);
  });

  it('names IPv6 ends on an IPv6 listener forwarding to an IPv4 node', async () => {
    const port = await freePort('::1');
    const svc = fx.store.put(
      lbService('v6', {
        annotations: { [ANNOTATION_PROXY_PROTOCOL]: 'v2', [ANNOTATION_IPS]: '::1' },
        spec: { ipFamilies: ['IPv6'], ports: [{ name: 'tcp', port, protocol: 'TCP', nodePort }] },
      }),
    );
    const status = await fx.lb.ensureLoadBalancer('kubernetes', svc, k8sNodes);
    expect(status.ingress).toEqual([{ ip: '::1', ipMode: 'Proxy' }]);
    const { answer, localPort } = await exchange('::1', port, 'six');
    expect(answer).toEqual({
      version: 'v2',
      source: '::1',
      sourcePort: localPort,
      destination: '::1',
      destinationPort: port,
      payload: 'six',
    });
  });

  it('rejects an unknown version with the annotation named', async () => {
    await expect(
      fx.lb.ensureLoadBalancer('kubernetes', service({ [ANNOTATION_PROXY_PROTOCOL]: 'v3' }), k8sNodes),
    ).rejects.toThrow('local.ccm-kit.io/proxy-protocol: "v3" is not one of "v1", "v2"');
  });
});
