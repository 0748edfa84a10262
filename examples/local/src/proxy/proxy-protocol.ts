/**
 * The PROXY protocol header a TCP listener sends to its backend before the client's bytes, so the backend
 * learns the client's address and port and the load balancer's (HAProxy "The PROXY protocol", versions 1
 * and 2, https://www.haproxy.org/download/2.9/doc/proxy-protocol.txt). The addresses are those of the
 * client's connection: source = the client, destination = the listener.
 */
import { formatIP, type IPAddress, parseIP } from '@ccm-kit/cloud-provider';
import type { ProxyProtocolVersion } from '../annotations.js';

/** One end of the client's connection. */
export interface Endpoint {
  readonly address: string;
  readonly port: number;
}

/** The 12-byte signature that opens a version 2 header. */
const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
/** Version 2, command PROXY. */
const V2_PROXY = 0x21;
/** Address family and transport: TCP over IPv4 / IPv6. */
const V2_TCP4 = 0x11;
const V2_TCP6 = 0x21;

/** @throws Error when `address` is not an IP address. */
function parsed(address: string): IPAddress {
  const ip = parseIP(address);
  if (!ip) throw new Error(`PROXY protocol: "${address}" is not an IP address`);
  return ip;
}

/** 4 bytes for IPv4 (also IPv4-mapped IPv6), else 16. */
const addressBytes = (ip: IPAddress): Uint8Array => (ip.family === 4 ? ip.bytes.subarray(12) : ip.bytes);

/**
 * The header of `version` for a TCP connection from `source` to `destination`. Both ends are of one family,
 * as on any socket; IPv4-mapped IPv6 peers count as IPv4.
 * - `v1`: `PROXY TCP4 <src> <dst> <sport> <dport>\r\n` (or `TCP6`).
 * - `v2`: the binary header, command PROXY, `TCP over IPv4` (12 address bytes) or `TCP over IPv6` (36).
 * @throws Error when an address is not an IP address or the two ends differ in family.
 */
export function proxyProtocolHeader(version: ProxyProtocolVersion, source: Endpoint, destination: Endpoint): Buffer {
  const srcIP = parsed(source.address);
  const dstIP = parsed(destination.address);
  const src = addressBytes(srcIP);
  const dst = addressBytes(dstIP);
  if (src.length !== dst.length) {
    throw new Error(`PROXY protocol: ${source.address} and ${destination.address} differ in family`);
  }
  const v4 = src.length === 4;
  if (version === 'v1') {
    const family = v4 ? 'TCP4' : 'TCP6';
    return Buffer.from(
      `PROXY ${family} ${formatIP(srcIP)} ${formatIP(dstIP)} ${source.port} ${destination.port}\r\n`,
      'latin1',
    );
  }
  const addresses = Buffer.alloc(src.length * 2 + 4);
  addresses.set(src, 0);
  addresses.set(dst, src.length);
  addresses.writeUInt16BE(source.port, src.length * 2);
  addresses.writeUInt16BE(destination.port, src.length * 2 + 2);
  const head = Buffer.alloc(4);
  head[0] = V2_PROXY;
  head[1] = v4 ? V2_TCP4 : V2_TCP6;
  head.writeUInt16BE(addresses.length, 2);
  return Buffer.concat([V2_SIGNATURE, head, addresses]);
}
