/**
 * A small Go-style `fmt.Sprintf` for event messages and log lines written with upstream's format
 * strings. Supported verbs: `%v` `%+v` `%s` `%d` `%q` `%t` `%f`/`%.Nf` `%x` `%%`, with an optional width
 * (`%5d`, `%-8s`, `%05d`). Go's error markers are kept: a missing argument prints `%!v(MISSING)`,
 * extra arguments append `%!(EXTRA <values>)`.
 */

/** Renders a value as Go's `%v` would for the shapes ccm-kit passes (strings, numbers, errors, arrays, objects). */
export function formatValue(v: unknown): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v instanceof Error) return v.message;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return `[${v.map(formatValue).join(' ')}]`;
  if (v instanceof Set) return `[${[...v].map(formatValue).join(' ')}]`;
  if (v instanceof Map) return `map[${[...v].map(([k, x]) => `${formatValue(k)}:${formatValue(x)}`).join(' ')}]`;
  if (typeof v === 'object' && typeof (v as { toString?: unknown }).toString === 'function') {
    const s = String(v);
    if (s !== '[object Object]') return s;
  }
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

function pad(s: string, width: number | undefined, left: boolean, zero: boolean): string {
  if (width === undefined || s.length >= width) return s;
  if (left) return s.padEnd(width, ' ');
  if (zero) {
    const neg = s.startsWith('-');
    const body = neg ? s.slice(1) : s;
    return (neg ? '-' : '') + body.padStart(width - (neg ? 1 : 0), '0');
  }
  return s.padStart(width, ' ');
}

function formatVerb(verb: string, v: unknown, precision: number | undefined, plus: boolean): string {
  switch (verb) {
    case 'v':
      return plus && v !== null && typeof v === 'object' && !(v instanceof Error) && !Array.isArray(v)
        ? JSON.stringify(v)
        : formatValue(v);
    case 's':
      return formatValue(v);
    case 'd':
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'number' && Number.isInteger(v)) return String(v);
      return `%!d(${formatValue(v)})`;
    case 'q':
      return JSON.stringify(formatValue(v));
    case 't':
      return typeof v === 'boolean' ? String(v) : `%!t(${formatValue(v)})`;
    case 'f':
      return typeof v === 'number' ? v.toFixed(precision ?? 6) : `%!f(${formatValue(v)})`;
    case 'x':
      if (typeof v === 'number' && Number.isInteger(v)) return v.toString(16);
      if (typeof v === 'bigint') return v.toString(16);
      return Buffer.from(formatValue(v), 'utf8').toString('hex');
    default:
      return `%!${verb}(${formatValue(v)})`;
  }
}

/** Formats `format` with `args` like Go's `fmt.Sprintf` (see the module comment for what is supported). */
export function sprintf(format: string, ...args: unknown[]): string {
  let out = '';
  let next = 0;
  const re = /%([-+#0 ]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])/g;
  let last = 0;
  for (let m = re.exec(format); m !== null; m = re.exec(format)) {
    out += format.slice(last, m.index);
    last = re.lastIndex;
    const [, flags = '', width, precision, verb = ''] = m;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (next >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const s = formatVerb(
      verb,
      args[next++],
      precision === undefined ? undefined : Number(precision),
      flags.includes('+'),
    );
    out += pad(s, width === undefined ? undefined : Number(width), flags.includes('-'), flags.includes('0'));
  }
  out += format.slice(last);
  if (next < args.length) out += `%!(EXTRA ${args.slice(next).map(formatValue).join(', ')})`;
  return out;
}
