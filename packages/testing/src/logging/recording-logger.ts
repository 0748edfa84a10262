/**
 * A `Logger` that keeps every line in memory, for unit tests that assert what code logs without capturing the
 * process' log output (for that, see `captureLogs`).
 */
import type { LogFields, Logger, VerboseLogger } from '@ccm-kit/runtime';

/** One line a {@link RecordingLogger} received. */
export interface LogRecord {
  /** `info` (also a verbose `v(level).info`), `warn` or `error`. */
  readonly level: 'info' | 'warn' | 'error';
  /** The verbosity of a `v(level).info` line; `undefined` for the others. */
  readonly v?: number;
  /** The message, as passed in. */
  readonly msg: string;
  /** The fields of the logger (`with(fields)`) and of the line, the line's winning. */
  readonly fields: LogFields;
  /** The error passed to `error`; `undefined` for the others. */
  readonly err?: unknown;
}

/** Options of {@link RecordingLogger}. */
export interface RecordingLoggerOptions {
  /** The logger's name; default `test`. */
  name?: string;
  /**
   * `v(level)` is enabled, and its lines recorded, for `level` ≤ this; default `Infinity` (every verbose line).
   * `0` records no verbose line, as a process at the default `--v=0`.
   */
  verbosity?: number;
}

/**
 * Records every line in {@link records}, in call order; the loggers `with()` returns share them. Never writes
 * anything.
 */
export class RecordingLogger implements Logger {
  /** The logger's name (`<parent>/<name>` for a child given a name). */
  readonly name: string;
  /** Every line received by this logger and its children, oldest first. Tests may clear it (`records.length = 0`). */
  readonly records: LogRecord[];
  readonly #verbosity: number;
  readonly #fields: LogFields;

  /** @param options the name and verbosity; `records` and `fields` are the parent's, for {@link with}. */
  constructor(options: RecordingLoggerOptions = {}, records: LogRecord[] = [], fields: LogFields = {}) {
    this.name = options.name ?? 'test';
    this.#verbosity = options.verbosity ?? Infinity;
    this.records = records;
    this.#fields = fields;
  }

  /**
   * The lines as text, oldest first: `I <msg>` (`W`, `E`), followed by the fields as JSON when there are any, e.g.
   * `I Deleted orphaned load balancer {"service":"default/gone"}`.
   */
  get lines(): string[] {
    return this.records.map((r) => {
      const fields = Object.keys(r.fields).length ? ` ${JSON.stringify(r.fields)}` : '';
      return `${r.level[0]!.toUpperCase()} ${r.msg}${fields}`;
    });
  }

  /** Records an `info` line. */
  info(msg: string, fields?: LogFields): void {
    this.records.push({ level: 'info', msg, fields: { ...this.#fields, ...fields } });
  }

  /** Records a `warn` line. */
  warn(msg: string, fields?: LogFields): void {
    this.records.push({ level: 'warn', msg, fields: { ...this.#fields, ...fields } });
  }

  /** Records an `error` line with its error. */
  error(err: unknown, msg: string, fields?: LogFields): void {
    this.records.push({ level: 'error', msg, fields: { ...this.#fields, ...fields }, err });
  }

  /** Enabled for `level` ≤ the verbosity; an enabled logger records `info` lines with `v: level`. */
  v(level: number): VerboseLogger {
    const enabled = level <= this.#verbosity;
    return {
      enabled,
      info: (msg, fields) => {
        if (enabled) this.records.push({ level: 'info', v: level, msg, fields: { ...this.#fields, ...fields } });
      },
    };
  }

  /** A child sharing {@link records}, adding `fields` to each of its lines (named `<name>/<child>` if given). */
  with(fields: LogFields, name?: string): RecordingLogger {
    return new RecordingLogger(
      { name: name ? `${this.name}/${name}` : this.name, verbosity: this.#verbosity },
      this.records,
      { ...this.#fields, ...fields },
    );
  }
}
