/**
 * klog logging on top of `debug`: verbosity levels (`--v`), structured key/values, and the two output
 * formats of k8s.io/component-base/logs (`--logging-format`): klog's text format
 * (`I1124 05:20:58.528123   12345 file.js:123] "msg" key="value"`) and the JSON format
 * (`{"ts":1764...,"caller":"dir/file.js:123","msg":"msg","v":0,"key":"value"}`), so log pipelines that
 * parse upstream CCM logs parse these too. `logger.v(n).info(...)` prints only when the global verbosity
 * is ≥ n; errors always print.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import createDebug from 'debug';
import { errorMessage } from '@ccm-kit/cloud-provider/internal';

/** Structured key/values attached to a log line. */
export type LogFields = Record<string, unknown>;

/** Output format: `text` (klog's header and structured key/values) or `json` (component-base's JSON, one object per line). */
export type LogFormat = 'text' | 'json';

/** Where lines go: one writer (tests, {@link setLogWriter}) or the process's streams per {@link LogStreamOptions}. */
const state: {
  verbosity: number;
  format: LogFormat;
  write: ((line: string) => void) | undefined;
  streams: LogStreams;
} = {
  verbosity: 0,
  format: 'text',
  write: undefined,
  streams: undefined as unknown as LogStreams,
};

/**
 * Output streams of the log lines, as k8s.io/component-base `logs/api/v1` `OutputRoutingOptions` (the
 * `--log-{text,json}-split-stream` and `--log-{text,json}-info-buffer-size` flags).
 */
export interface LogStreamOptions {
  /** Info and warning lines to stdout, error lines to stderr. Default false: every line to stderr. */
  splitStream: boolean;
  /**
   * With `splitStream`, info lines are held until this many **bytes** are pending (or the flush period passes,
   * or an error line or {@link flushLogs} comes); 0 writes each line at once.
   */
  infoBufferSize: number;
  /** How often buffered info lines are written out, in **milliseconds** (`--log-flush-frequency`, default 5000). */
  flushFrequencyMs?: number;
}

/** The writers of one {@link LogStreamOptions} setting. */
class LogStreams {
  #pending: string[] = [];
  #pendingBytes = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly options: LogStreamOptions) {
    if (options.splitStream && options.infoBufferSize > 0) {
      this.#timer = setInterval(() => this.flush(), options.flushFrequencyMs ?? 5_000);
      this.#timer.unref();
      process.once('exit', () => this.flush());
    }
  }

  write(line: string, severity: Severity): void {
    const { splitStream, infoBufferSize } = this.options;
    if (!splitStream || severity === 'E') {
      this.flush();
      process.stderr.write(line + '\n');
    } else if (infoBufferSize > 0) {
      this.#pending.push(line + '\n');
      this.#pendingBytes += Buffer.byteLength(line) + 1;
      if (this.#pendingBytes >= infoBufferSize) this.flush();
    } else {
      process.stdout.write(line + '\n');
    }
  }

  flush(): void {
    if (this.#pending.length === 0) return;
    const text = this.#pending.join('');
    this.#pending = [];
    this.#pendingBytes = 0;
    process.stdout.write(text);
  }

  close(): void {
    this.flush();
    clearInterval(this.#timer);
  }
}

state.streams = new LogStreams({ splitStream: false, infoBufferSize: 0 });

/**
 * Routes log lines to the process's streams (the `--log-*-split-stream` and `--log-*-info-buffer-size` flags);
 * pending buffered lines of the previous setting are written first.
 */
export function setLogStreams(options: LogStreamOptions): void {
  state.streams.close();
  state.streams = new LogStreams(options);
}

/** Writes out buffered info lines now (klog.Flush); a no-op without an info buffer. */
export function flushLogs(): void {
  state.streams.flush();
}

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

/** Replaces the line writer (default: the process's streams, see {@link setLogStreams}). Used by tests to capture output. */
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

/** The source position of a log call, as klog's header and zap's `caller` field give it. */
interface CallSite {
  /** Path of the file, as the runtime reports it (a `file://` URL for ES modules). */
  file: string;
  line: number;
}

/**
 * Where the logger method `boundary` was called from: V8 drops `boundary` and every frame above it, so the
 * first remaining frame is the caller (this works in a bundle too, where every frame is in one file).
 */
function callSiteOf(boundary: (...args: never[]) => unknown): CallSite {
  const holder: { stack?: unknown } = {};
  const { prepareStackTrace, stackTraceLimit } = Error;
  try {
    Error.stackTraceLimit = 1;
    Error.prepareStackTrace = (_err, frames) => frames;
    Error.captureStackTrace(holder, boundary);
    const frame = (holder.stack as NodeJS.CallSite[] | undefined)?.[0];
    const file = frame?.getFileName() ?? '???';
    const line = frame?.getLineNumber() ?? 1;
    return originalSite(file, line, frame?.getColumnNumber() ?? 1) ?? { file, line };
  } finally {
    Error.prepareStackTrace = prepareStackTrace;
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/** A bundle file's caller table (`ccm-kit build` writes `<file>.callers.json`; decision 0415), null when absent. */
interface CallerTable {
  sources: string[];
  /** Per generated line: flat `[genColumn (0-based), sourceIndex, originalLine (1-based), …]`, columns ascending. */
  lines: ArrayLike<number>[];
}
const callerTables = new Map<string, CallerTable | null>();

function callerTableOf(file: string): CallerTable | null {
  let table = callerTables.get(file);
  if (table === undefined) {
    table = null;
    if (file.endsWith('.mjs')) {
      try {
        const path = file.startsWith('file:') ? fileURLToPath(file) : file;
        const parsed = JSON.parse(readFileSync(`${path}.callers.json`, 'utf8')) as {
          sources: string[];
          lines: number[][];
        };
        // Typed arrays: a quarter of the heap the parsed number arrays take (≈0.5 instead of 2.3 MiB for the
        // largest chunk of a bundle).
        table = { sources: parsed.sources, lines: parsed.lines.map((row) => Int32Array.from(row)) };
      } catch {
        // Not a ccm-kit bundle (or its table was not shipped): the bundle's own file and line.
      }
    }
    callerTables.set(file, table);
  }
  return table;
}

/** The source file and line of a position in a bundle, from its caller table; undefined outside a bundle. */
function originalSite(file: string, line: number, column: number): CallSite | undefined {
  const row = callerTableOf(file)?.lines[line - 1];
  if (!row || row.length === 0) return undefined;
  // The last run starting at or before the column (binary search over the triples).
  let [lo, hi] = [0, row.length / 3 - 1];
  if (row[0]! > column - 1) return undefined;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (row[mid * 3]! <= column - 1) lo = mid;
    else hi = mid - 1;
  }
  return { file: callerTables.get(file)!.sources[row[lo * 3 + 1]!] ?? file, line: row[lo * 3 + 2]! };
}

/** {@link tailOfPath}'s answers by `n` and file: a process logs from a few hundred call sites at most. */
const tails = new Map<number, Map<string, string>>();

/** The last `n` path segments of a file path or URL (klog: the base name; zap's short caller: dir/base). */
function tailOfPath(file: string, n: number): string {
  let byFile = tails.get(n);
  if (!byFile) tails.set(n, (byFile = new Map()));
  let tail = byFile.get(file);
  if (tail === undefined) {
    tail = file.split(/[\\/]/).slice(-n).join('/');
    byFile.set(file, tail);
  }
  return tail;
}

const pad = (v: number, width: number) => String(v).padStart(width, '0');

/** {@link klogHeader}'s `mmdd hh:mm:ss.` of the second of the last line, and the padded thread id. */
const header = { second: Number.NaN, time: '', threadId: '' };

/**
 * klog's header, `Lmmdd hh:mm:ss.uuuuuu threadid file:line] ` (k8s.io/klog/v2 klog.go formatHeader): local
 * time with microseconds, the thread id right-aligned in 7 columns (the process id here: one JS thread).
 */
function klogHeader(severity: Severity, epochMicros: number, site: CallSite): string {
  const second = Math.floor(epochMicros / 1_000_000);
  if (second !== header.second) {
    // The local date and time to the second, formatted once per second rather than per line.
    const d = new Date(second * 1000);
    header.second = second;
    header.time =
      `${pad(d.getMonth() + 1, 2)}${pad(d.getDate(), 2)} ` +
      `${pad(d.getHours(), 2)}:${pad(d.getMinutes(), 2)}:${pad(d.getSeconds(), 2)}.`;
    header.threadId = String(process.pid).padStart(7, ' ');
  }
  const micros = Math.floor(epochMicros % 1_000_000);
  return `${severity}${header.time}${pad(micros, 6)} ${header.threadId} ${tailOfPath(site.file, 1)}:${site.line}] `;
}

/** Microseconds since the epoch (Date alone has milliseconds). */
function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

type Severity = 'I' | 'W' | 'E';

interface Entry {
  severity: Severity;
  /** Verbosity of an info line (`v(n)`; 0 for info and warnings). */
  level: number;
  name: string;
  msg: string;
  fields: LogFields;
  err?: unknown;
  site: CallSite;
}

/**
 * component-base/logs/json (zapr over zap, k8s.io/component-base logs/json/json.go): `ts` in milliseconds
 * since the epoch (a float), `caller` as `dir/file:line`, `msg`, then `v` for info lines or `err` for
 * errors, then the key/values. Warnings are info lines at v=0 there too (klog hands them to logr.Info).
 * The logger name goes in a `logger` key, as klog's text logger adds it.
 */
function jsonLine(e: Entry, epochMicros: number): string {
  const rec: Record<string, unknown> = {
    ts: epochMicros / 1000,
    caller: `${tailOfPath(e.site.file, 2)}:${e.site.line}`,
    msg: e.msg,
  };
  // klog.ErrorS(nil, ...) (and zapr's Error with a nil error) writes no `err` key.
  if (e.severity === 'E') {
    if (e.err != null) rec.err = errorMessage(e.err);
  } else rec.v = e.level;
  rec.logger = e.name;
  Object.assign(rec, e.fields);
  return JSON.stringify(rec, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
}

/**
 * klog's structured text format: header, quoted message, `err=` first for errors (klog.ErrorS; none for a nil
 * error, as `klog.ErrorS(nil, "leaderelection lost")`), key/values.
 */
function textLine(e: Entry, epochMicros: number): string {
  const kv: string[] = [];
  if (e.severity === 'E' && e.err != null) kv.push(` err=${renderValue(errorMessage(e.err))}`);
  kv.push(` logger=${renderValue(e.name)}`);
  for (const [k, v] of Object.entries(e.fields)) kv.push(` ${k}=${renderValue(v)}`);
  return `${klogHeader(e.severity, epochMicros, e.site)}${JSON.stringify(e.msg)}${kv.join('')}`;
}

function emit(e: Entry): void {
  const micros = nowMicros();
  const line = state.format === 'json' ? jsonLine(e, micros) : textLine(e, micros);
  if (state.write) state.write(line);
  else state.streams.write(line, e.severity);
}

/** A verbosity-gated logger, as returned by {@link Logger.v}. */
export interface VerboseLogger {
  /** True when lines at this verbosity are printed. */
  readonly enabled: boolean;
  /** Prints an info line when {@link VerboseLogger.enabled}. */
  info(msg: string, fields?: LogFields): void;
}

/** A named structured logger. */
export interface Logger {
  /** The logger's name, printed as `logger="<name>"`. */
  readonly name: string;
  /** Prints an info line (`I` in text format). */
  info(msg: string, fields?: LogFields): void;
  /** Prints a warning line (`W`). */
  warn(msg: string, fields?: LogFields): void;
  /** Prints an error line (`E`) with `err="<message>"`. */
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
  const log = (
    severity: Severity,
    level: number,
    boundary: (...args: never[]) => unknown,
    msg: string,
    fields?: LogFields,
    err?: unknown,
  ) => {
    const all = { ...base, ...fields };
    if (dbg.enabled) dbg('%s %o', msg, all);
    emit({ severity, level, name, msg, fields: all, err, site: callSiteOf(boundary) });
  };
  const info = (msg: string, fields?: LogFields) => log('I', 0, info, msg, fields);
  const warn = (msg: string, fields?: LogFields) => log('W', 0, warn, msg, fields);
  const error = (err: unknown, msg: string, fields?: LogFields) => log('E', 0, error, msg, fields, err);
  return {
    name,
    info,
    warn,
    error,
    v(level) {
      const verboseInfo = (msg: string, fields?: LogFields) => {
        if (state.verbosity >= level) log('I', level, verboseInfo, msg, fields);
        else if (dbg.enabled) dbg('%s %o', msg, { ...base, ...fields });
      };
      return { enabled: state.verbosity >= level, info: verboseInfo };
    },
    with: (fields, child) => createLogger(child ? `${name}/${child}` : name, { ...base, ...fields }),
  };
}
