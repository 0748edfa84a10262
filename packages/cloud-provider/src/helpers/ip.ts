/**
 * Internal IP and CIDR parsing with Go's semantics (`net.ParseIP`, `net.ParseCIDR`, `IP.String`, `IP.Equal`)
 * plus k8s.io/utils/net's "sloppy" IPv4 (leading zeros allowed, read as decimal). Every address is held as
 * 16 bytes; IPv4 uses the IPv4-mapped form, so `::ffff:1.2.3.4` equals `1.2.3.4`, as in Go.
 * Not exported from the package.
 */

/** A parsed address: 16 bytes, IPv4 in IPv4-mapped form. */
export type IPBytes = Uint8Array;

const V4_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function parseIPv4Bytes(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^[0-9]+$/.test(p)) return undefined;
    const n = Number.parseInt(p, 10);
    if (n > 255) return undefined;
    out.push(n);
  }
  return out;
}

function parseIPv6Bytes(s: string): number[] | undefined {
  if (s.includes('%')) return undefined;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const parseGroups = (part: string, allowV4Tail: boolean): number[] | undefined => {
    if (part === '') return [];
    const groups = part.split(':');
    const bytes: number[] = [];
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i] as string;
      if (allowV4Tail && i === groups.length - 1 && g.includes('.')) {
        const v4 = parseIPv4Bytes(g);
        if (v4 === undefined) return undefined;
        bytes.push(...v4);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      const n = Number.parseInt(g, 16);
      bytes.push(n >> 8, n & 0xff);
    }
    return bytes;
  };
  if (halves.length === 1) {
    const all = parseGroups(s, true);
    return all !== undefined && all.length === 16 ? all : undefined;
  }
  const head = parseGroups(halves[0] as string, false);
  const tail = parseGroups(halves[1] as string, true);
  if (head === undefined || tail === undefined) return undefined;
  const missing = 16 - head.length - tail.length;
  // "::" stands for at least one group of zeros.
  if (missing < 2) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/** Parses an IPv4 (leading zeros allowed) or IPv6 address; `undefined` when invalid (Go `ParseIPSloppy`). */
export function parseIP(s: string): IPBytes | undefined {
  if (s.includes(':')) {
    const b = parseIPv6Bytes(s);
    return b === undefined ? undefined : Uint8Array.from(b);
  }
  const v4 = parseIPv4Bytes(s);
  return v4 === undefined ? undefined : Uint8Array.from([...V4_PREFIX, ...v4]);
}

/** True for IPv4 (including IPv4-mapped IPv6), as Go's `ip.To4() != nil`. */
export function isIPv4(ip: IPBytes): boolean {
  return V4_PREFIX.every((b, i) => ip[i] === b);
}

/** True for `0.0.0.0` and `::`. */
export function isUnspecified(ip: IPBytes): boolean {
  if (isIPv4(ip)) return ip[12] === 0 && ip[13] === 0 && ip[14] === 0 && ip[15] === 0;
  return ip.every((b) => b === 0);
}

/** Go's `IP.Equal`. */
export function ipEqual(a: IPBytes, b: IPBytes): boolean {
  return a.every((v, i) => v === b[i]);
}

/** Go's `IP.String`: dotted IPv4, or RFC 5952 IPv6 (longest zero run of ≥ 2 groups compressed, first on ties). */
export function formatIP(ip: IPBytes): string {
  if (isIPv4(ip)) return `${ip[12]}.${ip[13]}.${ip[14]}.${ip[15]}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip[i] as number) << 8) | (ip[i + 1] as number));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (g: number[]) => g.map((n) => n.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLen))}`;
}

/** A parsed CIDR, masked to its network address. */
export interface ParsedCIDR {
  /** The network address (16 bytes). */
  ip: IPBytes;
  /** The prefix length within its family (0–32 for IPv4 notation, 0–128 for IPv6 notation). */
  prefix: number;
  /** Go's `IPNet.String()` of the masked network, for example `192.168.0.0/16` or `2001:db8::/32`. */
  text: string;
}

/**
 * Parses `<ip>/<prefix>` like Go's `ParseCIDR` (sloppy IPv4); `undefined` when invalid. The family is
 * taken from the notation: an address with `:` has 128 bits, otherwise 32.
 */
export function parseCIDR(s: string): ParsedCIDR | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const addr = s.slice(0, slash);
  const prefixText = s.slice(slash + 1);
  const ip = parseIP(addr);
  if (ip === undefined || !/^[0-9]+$/.test(prefixText)) return undefined;
  const v6Notation = addr.includes(':');
  const bits = v6Notation ? 128 : 32;
  const prefix = Number.parseInt(prefixText, 10);
  if (prefix > bits) return undefined;
  const maskedPrefix = v6Notation ? prefix : prefix + 96;
  const net = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    const bitsHere = Math.max(0, Math.min(8, maskedPrefix - i * 8));
    const mask = bitsHere === 0 ? 0 : (0xff << (8 - bitsHere)) & 0xff;
    net[i] = (ip[i] as number) & mask;
  }
  // IPv4 notation keeps the IPv4-mapped prefix bytes.
  if (!v6Notation) net.set(V4_PREFIX, 0);
  return { ip: net, prefix, text: `${formatIP(net)}/${prefix}` };
}
