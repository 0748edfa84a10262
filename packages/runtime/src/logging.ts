/**
 * klog-style logging on top of `debug`: verbosity levels (`--v`), structured key/values,
 * text or JSON output (`--logging-format`). Follows component-base/logs semantics:
 * `logger.v(n).info(...)` prints only when the global verbosity is ≥ n; errors always print.
 */
import createDebug from 'debug';

/** Structured key/values attached to a log line. */
export type LogFields = Record<string, unknown>;

/** Output format: `text` (klog-like) or `json` (one object per line). */
export type LogFormat = 'text' | 'json';

const state: { verbosity: number; format: LogFormat; write: (line: string) => void } = {
  verbosity: 0,
  format: 'text',
  write: (line) => process.stderr.write(line + '\n'),
};

/** Sets the global verbosity (the `--v` flag); negative values become 0. */
export function setVerbosity(level: number): void {
  state.verbosity = Math.max(0, Math.trunc(level));
}

/** The global verbosity. */
export function getVerbosity(): number {
  return state.verbosity;
}

/** Sets the output format (the `--logging-format` flag). */
export function setLogFormat(format: LogFormat): void {
  state.format = format;
}

/** Replaces the line writer (default: stderr). Used by tests to capture output. */
export function setLogWriter(write: (line: string) => void): void {
  state.write = write;
}

function renderValue(v: unknown): string {
  if (v instanceof Error) return JSON.stringify(v.message);
  if (typeof v === 'string') return JSON.stringify(v);
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

function emit(severity: 'I' | 'W' | 'E', name: string, msg: string, fields: LogFields, err?: unknown): void {
  const now = new Date();
  if (state.format === 'json') {
    const rec: Record<string, unknown> = { ts: now.getTime() / 1000, logger: name, msg, ...fields };
    if (severity !== 'I') rec.level = severity === 'W' ? 'warning' : 'error';
    if (err !== undefined) rec.err = err instanceof Error ? err.message : String(err);
    state.write(JSON.stringify(rec, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
    return;
  }
  const kv = Object.entries(fields).map(([k, v]) => ` ${k}=${renderValue(v)}`);
  if (err !== undefined) kv.push(` err=${renderValue(err instanceof Error ? err.message : String(err))}`);
  state.write(`${severity}${now.toISOString()} ${name}] ${JSON.stringify(msg)}${kv.join('')}`);
}

/** A verbosity-gated logger, as returned by {@link Logger.v}. */
export interface VerboseLogger {
  /** True when lines at this verbosity are printed. */
  readonly enabled: boolean;
  info(msg: string, fields?: LogFields): void;
}

/** A named structured logger. */
export interface Logger {
  readonly name: string;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(err: unknown, msg: string, fields?: LogFields): void;
  /** A logger that prints only when the global verbosity is ≥ `level`. */
  v(level: number): VerboseLogger;
  /** A child logger with a longer name and fields added to every line. */
  with(fields: LogFields, name?: string): Logger;
}

/**
 * Creates a logger named `name` (for example `service-lb-controller`). Lines are also sent to
 * `debug` under `ccm-kit:<name>` so `DEBUG=ccm-kit:*` shows everything regardless of `--v`.
 */
export function createLogger(name: string, base: LogFields = {}): Logger {
  const dbg = createDebug(`ccm-kit:${name}`);
  const log = (sev: 'I' | 'W' | 'E', msg: string, fields?: LogFields, err?: unknown) => {
    const all = { ...base, ...fields };
    if (dbg.enabled) dbg('%s %o', msg, all);
    emit(sev, name, msg, all, err);
  };
  return {
    name,
    info: (msg, fields) => log('I', msg, fields),
    warn: (msg, fields) => log('W', msg, fields),
    error: (err, msg, fields) => log('E', msg, fields, err),
    v(level) {
      const enabled = state.verbosity >= level;
      return {
        enabled,
        info: (msg, fields) => {
          if (state.verbosity >= level) log('I', msg, fields);
          else if (dbg.enabled) dbg('%s %o', msg, { ...base, ...fields });
        },
      };
    },
    with: (fields, child) => createLogger(child ? `${name}/${child}` : name, { ...base, ...fields }),
  };
}
