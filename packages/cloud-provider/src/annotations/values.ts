/**
 * Parsing one annotation value by its declared type, and the words that describe the expected form (used in
 * error messages and in the reference table, so both always agree).
 */
import { parseGoDuration } from '../helpers/go-duration.js';
import { formatCIDR, formatIP, parseCIDR, parseIP } from '../net.js';
import type { AnnotationSpec } from './spec.js';

/** The outcome of parsing one value: the typed value, or why it is not one (`expected` describes the form). */
export type ValueResult = { ok: true; value: unknown } | { ok: false; reason?: string };

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

function formatMs(ms: number): string {
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0 && ms > 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

function range(min: number | undefined, max: number | undefined, fmt: (n: number) => string): string {
  if (min !== undefined && max !== undefined) return ` from ${fmt(min)} to ${fmt(max)}`;
  if (min !== undefined) return ` of at least ${fmt(min)}`;
  if (max !== undefined) return ` of at most ${fmt(max)}`;
  return '';
}

/** The expected form of a declaration, in words: `an integer from 1 to 10`, `one of tcp, http`, … */
export function expectedForm(spec: AnnotationSpec): string {
  switch (spec.type) {
    case 'string':
      return spec.patternText ?? (spec.pattern ? `a string matching ${String(spec.pattern)}` : 'a string');
    case 'boolean':
      return '"true" or "false"';
    case 'integer':
      return `an integer${range(spec.min, spec.max, String)}`;
    case 'duration':
      return `a duration (e.g. 500ms, 2s, 1m30s)${range(spec.minMs, spec.maxMs, formatMs)}`;
    case 'enum':
      return `one of ${spec.values.map((v) => `"${v}"`).join(', ')}`;
    case 'cidr-list':
      return 'comma-separated CIDRs (e.g. 10.0.0.0/8,2001:db8::/32)';
    case 'ip':
      return spec.family ? `an ${spec.family} address` : 'an IP address';
    case 'ip-list':
      return `comma-separated IP addresses${spec.onePerFamily ? ', at most one per family' : ''}`;
    case 'map':
      return 'comma-separated key=value pairs (e.g. team=web,env=prod)';
  }
}

function items(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Why one item of a list is wrong: `"<item>" <what>`, or just `<what>` when the item is the whole value, which
 * the message names already.
 */
function itemReason(item: string, whole: string, what: string): string {
  return item === whole ? what : `"${item}" ${what}`;
}

function bounded(n: number, min: number | undefined, max: number | undefined): boolean {
  return (min === undefined || n >= min) && (max === undefined || n <= max);
}

/** Parses `raw` (already known to be present) as `spec` says. Never throws. */
export function parseValue(spec: AnnotationSpec, raw: string): ValueResult {
  const text = raw.trim();
  if (text === '' && !(spec.type === 'string' && !spec.pattern)) return { ok: false, reason: 'is empty' };
  switch (spec.type) {
    case 'string':
      return !spec.pattern || spec.pattern.test(raw) ? { ok: true, value: raw } : { ok: false };
    case 'boolean':
      if (TRUE.has(text)) return { ok: true, value: true };
      if (FALSE.has(text)) return { ok: true, value: false };
      return { ok: false };
    case 'integer': {
      if (!/^[+-]?\d+$/.test(text)) return { ok: false };
      const n = Number(text);
      return Number.isSafeInteger(n) && bounded(n, spec.min, spec.max) ? { ok: true, value: n } : { ok: false };
    }
    case 'duration': {
      let ms: number;
      try {
        ms = parseGoDuration(text);
      } catch {
        return { ok: false };
      }
      if (ms < 0) return { ok: false, reason: 'is negative' };
      return bounded(ms, spec.minMs, spec.maxMs) ? { ok: true, value: ms } : { ok: false };
    }
    case 'enum':
      return spec.values.includes(text) ? { ok: true, value: text } : { ok: false };
    case 'cidr-list': {
      const out: string[] = [];
      for (const item of items(text)) {
        try {
          out.push(formatCIDR(parseCIDR(item)));
        } catch {
          return { ok: false, reason: itemReason(item, text, 'is not a CIDR') };
        }
      }
      return { ok: true, value: out };
    }
    case 'ip': {
      const ip = parseIP(text);
      if (!ip) return { ok: false };
      if (spec.family && spec.family !== (ip.family === 4 ? 'IPv4' : 'IPv6')) return { ok: false };
      return { ok: true, value: formatIP(ip) };
    }
    case 'ip-list': {
      const out: string[] = [];
      const families = new Set<number>();
      for (const item of items(text)) {
        const ip = parseIP(item);
        if (!ip) return { ok: false, reason: itemReason(item, text, 'is not an IP address') };
        if (spec.onePerFamily && families.has(ip.family))
          return { ok: false, reason: `lists more than one IPv${ip.family} address` };
        families.add(ip.family);
        out.push(formatIP(ip));
      }
      return { ok: true, value: out };
    }
    case 'map': {
      const out: Record<string, string> = {};
      for (const item of items(text)) {
        const eq = item.indexOf('=');
        const key = eq < 0 ? '' : item.slice(0, eq).trim();
        if (key === '') return { ok: false, reason: itemReason(item, text, 'is not key=value') };
        if (Object.hasOwn(out, key)) return { ok: false, reason: `key "${key}" appears twice` };
        out[key] = item.slice(eq + 1).trim();
      }
      return { ok: true, value: out };
    }
  }
}

/** A declared default (or a value) as the reference table shows it. */
export function formatValue(spec: AnnotationSpec, value: unknown): string {
  if (spec.type === 'duration' && typeof value === 'number') return formatMs(value);
  if (Array.isArray(value)) return value.join(',');
  if (value !== null && typeof value === 'object') {
    return Object.entries(value as Record<string, string>)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
  }
  return String(value);
}
