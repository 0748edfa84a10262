/**
 * IP addresses and CIDR blocks with Go `net` semantics, for providers and controllers (route ownership,
 * `--cluster-cidr`, provided node IPs, load-balancer source ranges). Follows `k8s.io/utils/net.ParseCIDRSloppy` (Go's `net.ParseCIDR`, but IPv4 octets with
 * leading zeros are read as decimal) and `net.IPNet.Contains`.
 *
 * Addresses are held as 16 bytes; an IPv4 address is stored IPv4-mapped (`::ffff:a.b.c.d`) and flagged
 * `family: 4`, as Go's `To4()` would see it, so IPv4 networks and IPv4-mapped IPv6 networks of prefix ≥ 96
 * behave alike while a plain IPv6 network never contains an IPv4 address (Go compares lengths).
 */

/** An IP address: 16 bytes (IPv4 mapped into `::ffff:0:0/96`) and its family as Go's `To4()` sees it. */
export interface IPAddress {
  /** The address in 16 bytes; an IPv4 address as `::ffff:a.b.c.d`. */
  readonly bytes: Uint8Array;
  /** 4 when the address is IPv4 (or IPv4-mapped), else 6. */
  readonly family: 4 | 6;
}

/** A parsed CIDR block: its network address (host bits cleared), prefix length and family. */
export interface CIDR {
  /** The text it was parsed from. */
  readonly text: string;
  /** The network (first) address. */
  readonly network: IPAddress;
  /** The last address: the network OR-ed with the inverted mask. */
  readonly last: IPAddress;
  /** The prefix length in the family's own bits (0–32 for IPv4, 0–128 for IPv6). */
  readonly prefix: number;
  /** 4 or 6 (an IPv4-mapped IPv6 block with prefix ≥ 96 counts as 4, as in Go). */
  readonly family: 4 | 6;
}

const V4_MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function isV4Mapped(b: Uint8Array): boolean {
  for (let i = 0; i < 12; i++) if (b[i] !== V4_MAPPED_PREFIX[i]) return false;
  return true;
}

/**
 * Parses dotted IPv4 (`k8s.io/utils/net` sloppy form: four parts of 1–3 decimal digits, leading zeros allowed,
 * each ≤ 255) into `out[at]`…`out[at + 3]`. Returns false when `text` is not one (`out` may then be partly
 * written). One pass over the characters: the cloud-node controller parses every address of every Node it
 * initializes or refreshes.
 */
function parseIPv4Into(text: string, out: Uint8Array, at: number): boolean {
  let part = 0;
  let digits = 0;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2e /* . */) {
      if (digits === 0 || part === 3) return false;
      out[at + part++] = value;
      digits = 0;
      value = 0;
    } else if (c >= 0x30 && c <= 0x39 && digits < 3) {
      digits++;
      value = value * 10 + (c - 0x30);
      if (value > 255) return false;
    } else {
      return false;
    }
  }
  if (digits === 0 || part !== 3) return false;
  out[at + 3] = value;
  return true;
}

/** Parses IPv6 text (with `::` and an optional trailing dotted IPv4); zones are rejected. */
function parseIPv6(text: string): Uint8Array | undefined {
  if (text.includes('%')) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    const parts = s.split(':');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = new Uint8Array(4);
        if (!parseIPv4Into(p, v4, 0)) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(p)) return undefined;
        out.push(Number.parseInt(p, 16));
      }
    }
    return out;
  };
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!head || !tail) return undefined;
  let groups: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return undefined;
    groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else {
    groups = head;
  }
  if (groups.length !== 8) return undefined;
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}

/**
 * Parses an IP address (IPv4 dotted, leading zeros allowed; or IPv6). Returns `undefined` when it is not one.
 * An IPv4-mapped IPv6 address gets `family: 4`, as Go's `To4()`.
 */
export function parseIP(text: string): IPAddress | undefined {
  const bytes = new Uint8Array(16);
  if (parseIPv4Into(text, bytes, 12)) {
    bytes[10] = 0xff;
    bytes[11] = 0xff;
    return { bytes, family: 4 };
  }
  if (!text.includes(':')) return undefined;
  const v6 = parseIPv6(text);
  if (!v6) return undefined;
  return { bytes: v6, family: isV4Mapped(v6) ? 4 : 6 };
}

/** The error thrown by {@link parseCIDR}; the message is Go's (`invalid CIDR address: <text>`). */
export class CIDRParseError extends Error {
  constructor(
    /** The text that is not a CIDR, as given. */
    readonly text: string,
  ) {
    super(`invalid CIDR address: ${text}`);
    this.name = 'CIDRParseError';
  }
}

/** The mask bit for bit index `i` (0 = most significant) of a 16-byte address under a 128-bit prefix. */
function maskByte(prefix128: number, byteIndex: number): number {
  const bits = Math.min(8, Math.max(0, prefix128 - byteIndex * 8));
  return (0xff << (8 - bits)) & 0xff;
}

/**
 * Parses `addr/prefix` like `k8s.io/utils/net.ParseCIDRSloppy`: no whitespace, no zone, decimal prefix
 * within the family's width; host bits are cleared in {@link CIDR.network}.
 * @throws CIDRParseError with message `invalid CIDR address: <text>`.
 */
export function parseCIDR(text: string): CIDR {
  const slash = text.indexOf('/');
  if (slash < 0) throw new CIDRParseError(text);
  const addrText = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  const ip = parseIP(addrText);
  // Dotted IPv4 text (parseIP reads text without a colon only as that).
  const v4 = ip !== undefined && !addrText.includes(':');
  if (!ip || !/^[0-9]{1,9}$/.test(prefixText)) throw new CIDRParseError(text);
  const width = v4 ? 32 : 128;
  const prefix = Number(prefixText);
  if (prefix > width) throw new CIDRParseError(text);
  const prefix128 = v4 ? prefix + 96 : prefix;
  const network = new Uint8Array(16);
  const last = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    const m = maskByte(prefix128, i);
    network[i] = ip.bytes[i]! & m;
    last[i] = (ip.bytes[i]! & m) | (~m & 0xff);
  }
  // Go's To4() sees an IPv6-text network inside ::ffff:0:0/96 (only possible with prefix ≥ 96) as IPv4.
  const family: 4 | 6 = v4 || isV4Mapped(network) ? 4 : 6;
  return {
    text,
    network: { bytes: network, family },
    last: { bytes: last, family: v4 || isV4Mapped(last) ? 4 : 6 },
    prefix: family === 4 && !v4 ? prefix - 96 : prefix,
    family,
  };
}

/** True when `cidr` contains `ip` (Go `IPNet.Contains`: same family and the prefix bits match). */
export function cidrContains(cidr: CIDR, ip: IPAddress): boolean {
  if (cidr.family !== ip.family) return false;
  const prefix128 = cidr.family === 4 ? cidr.prefix + 96 : cidr.prefix;
  for (let i = 0; i < 16; i++) {
    const m = maskByte(prefix128, i);
    if (m === 0) break;
    if ((ip.bytes[i]! & m) !== cidr.network.bytes[i]) return false;
  }
  return true;
}

/** Formats an address like Go's `IP.String()` (dotted IPv4; RFC 5952 IPv6 with the longest zero run as `::`). */
export function formatIP(ip: IPAddress): string {
  const b = ip.bytes;
  if (ip.family === 4) return `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push((b[2 * i]! << 8) | b[2 * i + 1]!);
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
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
  const hex = (g: number[]) => g.map((x) => x.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLen))}`;
}

/** Formats a CIDR like Go's `IPNet.String()` (network address, `/`, prefix), e.g. `a00::/8`. */
export function formatCIDR(cidr: CIDR): string {
  return `${formatIP(cidr.network)}/${cidr.prefix}`;
}

/** Go's `IP.Equal`: the same address (an IPv4-mapped IPv6 address equals its IPv4 form). */
export function ipEqual(a: IPAddress, b: IPAddress): boolean {
  for (let i = 0; i < 16; i++) if (a.bytes[i] !== b.bytes[i]) return false;
  return true;
}

/** True for `0.0.0.0` and `::` (Go `IP.IsUnspecified`). */
export function isUnspecified(ip: IPAddress): boolean {
  return ip.family === 4 ? ip.bytes.subarray(12).every((b) => b === 0) : ip.bytes.every((b) => b === 0);
}

/** {@link parseCIDR} that returns `undefined` instead of throwing. */
export function tryParseCIDR(text: string): CIDR | undefined {
  try {
    return parseCIDR(text);
  } catch {
    return undefined;
  }
}
