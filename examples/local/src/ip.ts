/**
 * IP address arithmetic for the pools: addresses as `bigint`s with their family, CIDRs and ranges as
 * inclusive `[first, last]` spans, and canonical text (dotted IPv4; RFC 5952 IPv6).
 * IPv4-mapped IPv6 text (`::ffff:1.2.3.4`) is read as IPv4, as Node reports such socket peers.
 */
import { isIPv4, isIPv6 } from 'node:net';

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

function v4Value(text: string): bigint {
  return text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number.parseInt(part, 10)), 0n);
}

function v6Value(text: string): bigint {
  let s = text;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    // An embedded IPv4 tail (`::ffff:1.2.3.4`) stands for the last two groups.
    const v4 = v4Value(tail);
    s = `${s.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = s.includes('::') ? s.split('::') : [s, undefined];
  const parse = (p: string | undefined) => (p ? p.split(':').map((g) => BigInt(`0x${g}`)) : []);
  const h = parse(head);
  const r = parse(rest);
  const zeros = rest === undefined ? [] : new Array<bigint>(8 - h.length - r.length).fill(0n);
  return [...h, ...zeros, ...r].reduce((acc, g) => (acc << 16n) | g, 0n);
}

/** Parses an IPv4 or IPv6 address (no zone, no brackets); `undefined` when invalid. */
export function parseIP(text: string): IP | undefined {
  const s = text.trim();
  if (isIPv4(s)) return { family: 'IPv4', value: v4Value(s) };
  if (!isIPv6(s) || s.includes('%')) return undefined;
  const value = v6Value(s);
  if (value >> 32n === 0xffffn) return { family: 'IPv4', value: value & 0xffffffffn };
  return { family: 'IPv6', value };
}

/** Canonical text of `ip`: dotted IPv4, or RFC 5952 IPv6 (lower case, longest zero run compressed). */
export function formatIP(ip: IP): string {
  if (ip.family === 'IPv4') {
    return [24n, 16n, 8n, 0n].map((shift) => String((ip.value >> shift) & 0xffn)).join('.');
  }
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((ip.value >> BigInt(i * 16)) & 0xffffn));
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (g: number[]) => g.map((n) => n.toString(16)).join(':');
  if (best < 0) return hex(groups);
  return `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
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
    if (ip.family === 'IPv4' && hostBits >= 2n)
      return { family: ip.family, first: first + 1n, last: last - 1n };
    if (ip.family === 'IPv6' && hostBits >= 2n) return { family: ip.family, first: first + 1n, last };
    return { family: ip.family, first, last };
  }
  if (s.includes('-')) {
    const [a = '', b = '', ...extra] = s.split('-');
    const first = parseIP(a);
    const last = parseIP(b);
    if (!first || !last || extra.length > 0)
      throw new Error(`"${s}" is not a valid range (expected <ip>-<ip>)`);
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
