/**
 * IP address arithmetic for the pools: addresses as `bigint`s with their family, CIDRs and ranges as
 * inclusive `[first, last]` spans, and canonical text (dotted IPv4; RFC 5952 IPv6).
 * IPv4-mapped IPv6 text (`::ffff:1.2.3.4`) is read as IPv4, as Node reports such socket peers. Parsing and
 * formatting are @ccm-kit/cloud-provider's (Go `net` semantics); this module adds the arithmetic.
 */
import { formatIP as formatNetIP, parseIP as parseNetIP } from '@ccm-kit/cloud-provider';

/** `IPv4` or `IPv6`, spelled as in `spec.ipFamilies`. */
export type IPFamily = 'IPv4' | 'IPv6';

/** A parsed address. */
export interface IP {
  readonly family: IPFamily;
  readonly value: bigint;
}

/** An inclusive span of addresses of one family. */
export interface IPSpan {
  readonly family: IPFamily;
  readonly first: bigint;
  readonly last: bigint;
}

const BITS: Record<IPFamily, number> = { IPv4: 32, IPv6: 128 };

/** Parses an IPv4 or IPv6 address (no zone, no brackets; Go `net` rules); `undefined` when invalid. */
export function parseIP(text: string): IP | undefined {
  const ip = parseNetIP(text.trim());
  if (!ip) return undefined;
  const bytes = ip.family === 4 ? ip.bytes.subarray(12) : ip.bytes;
  const value = bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);
  return { family: ip.family === 4 ? 'IPv4' : 'IPv6', value };
}

/** Canonical text of `ip`: dotted IPv4, or RFC 5952 IPv6 (lower case, longest zero run compressed). */
export function formatIP(ip: IP): string {
  const bytes = new Uint8Array(16);
  if (ip.family === 'IPv4') bytes.set([0xff, 0xff], 10);
  const n = ip.family === 'IPv4' ? 4 : 16;
  for (let i = 0; i < n; i++) bytes[16 - n + i] = Number((ip.value >> BigInt((n - 1 - i) * 8)) & 0xffn);
  return formatNetIP({ bytes, family: ip.family === 'IPv4' ? 4 : 6 });
}

/** Canonical text of an address given as text, or `undefined` when it is not an address. */
export function canonicalIP(text: string): string | undefined {
  const ip = parseIP(text);
  return ip ? formatIP(ip) : undefined;
}

/**
 * Parses a pool entry: a CIDR (`10.0.0.0/24`, `fd00::/120`), a range (`10.0.0.10-10.0.0.20`, both ends
 * included and of one family) or a single address. For CIDRs the reserved ends are left out: the network
 * and broadcast addresses of an IPv4 prefix up to /30, and the subnet-router anycast address (the first)
 * of an IPv6 prefix up to /126.
 * @throws Error describing what is wrong with `text`.
 */
export function parseSpan(text: string): IPSpan {
  const s = text.trim();
  if (s.includes('/')) {
    const [addr = '', prefixText = '', ...extra] = s.split('/');
    if (extra.length > 0) throw new Error(`"${s}" is not a valid CIDR`);
    const ip = parseIP(addr);
    if (!ip || addr.includes(':') !== (ip.family === 'IPv6')) throw new Error(`"${s}" is not a valid CIDR`);
    const bits = BITS[ip.family];
    if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) {
      throw new Error(`"${s}" has an invalid prefix length (0-${bits})`);
    }
    const hostBits = BigInt(bits - Number(prefixText));
    const first = (ip.value >> hostBits) << hostBits;
    const last = first + (1n << hostBits) - 1n;
    if (ip.family === 'IPv4' && hostBits >= 2n) return { family: ip.family, first: first + 1n, last: last - 1n };
    if (ip.family === 'IPv6' && hostBits >= 2n) return { family: ip.family, first: first + 1n, last };
    return { family: ip.family, first, last };
  }
  if (s.includes('-')) {
    const [a = '', b = '', ...extra] = s.split('-');
    const first = parseIP(a);
    const last = parseIP(b);
    if (!first || !last || extra.length > 0) throw new Error(`"${s}" is not a valid range (expected <ip>-<ip>)`);
    if (first.family !== last.family) throw new Error(`"${s}" mixes IPv4 and IPv6`);
    if (first.value > last.value) throw new Error(`"${s}" ends before it starts`);
    return { family: first.family, first: first.value, last: last.value };
  }
  const ip = parseIP(s);
  if (!ip) throw new Error(`"${s}" is not an IP address, CIDR or range`);
  return { family: ip.family, first: ip.value, last: ip.value };
}

/** True when `ip` lies in `span`. */
export function spanContains(span: IPSpan, ip: IP): boolean {
  return span.family === ip.family && ip.value >= span.first && ip.value <= span.last;
}

/** True when the spans share an address. */
export function spansOverlap(a: IPSpan, b: IPSpan): boolean {
  return a.family === b.family && a.first <= b.last && b.first <= a.last;
}

/** Text of a span for messages: `first-last`, or the single address. */
export function formatSpan(span: IPSpan): string {
  const first = formatIP({ family: span.family, value: span.first });
  if (span.first === span.last) return first;
  return `${first}-${formatIP({ family: span.family, value: span.last })}`;
}
