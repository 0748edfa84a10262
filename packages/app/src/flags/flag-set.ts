/**
 * Kubernetes-style command-line flags (spf13/pflag semantics as the Go cloud-controller-manager uses them):
 * `--flag=value`, `--flag value`, `--bool`, `--bool=false`, `-v 2`/`-v=2`, Go durations, comma-separated lists,
 * `key=bool` maps (`--feature-gates`), named flag sets for the help output, and `--` ending the flags.
 * Error messages follow pflag's (`unknown flag: --x`, `invalid argument "y" for "--x" flag: ...`).
 */
import { isIP } from 'node:net';
import { formatGoDuration, parseGoDuration } from '@ccm-kit/runtime';

/** The kinds of flag value. Durations are held in **milliseconds**. */
export type FlagKind =
  'string' | 'ip' | 'bool' | 'int' | 'float' | 'duration' | 'stringSlice' | 'stringArray' | 'mapStringBool';

/** The TypeScript value type of each flag kind. */
export interface FlagValueOf {
  /** A free-text flag (pflag `String`). */
  string: string;
  /** An IP address (pflag `IP`), as given but trimmed. */
  ip: string;
  /** `--flag`, `--flag=true|false` (pflag `Bool`, Go `strconv.ParseBool` forms). */
  bool: boolean;
  /** A decimal integer (pflag `Int`/`Int32`). */
  int: number;
  /** A decimal number (pflag `Float32`/`Float64`). */
  float: number;
  /** A Go duration (`90s`, `1m30s`), in milliseconds. */
  duration: number;
  /** Comma-separated values; the first use replaces the default, later uses append (pflag `StringSlice`). */
  stringSlice: string[];
  /** One value per use, commas kept (pflag `StringArray`). */
  stringArray: string[];
  /** Comma-separated `key=true|false` pairs (component-base `MapStringBool`, as `--feature-gates`). */
  mapStringBool: Record<string, boolean>;
}

/** One flag's definition. */
export interface FlagDefinition<K extends FlagKind = FlagKind> {
  /** Long name without dashes, for example `cloud-provider`. */
  name: string;
  /** Optional one-letter short name (`v`, `h`). */
  shorthand?: string;
  /**
   * The value type: how the command line is parsed and what `bind` and the parsed values receive ({@link FlagValueOf}).
   */
  kind: K;
  /** The value when the flag is not given (durations in milliseconds). */
  default: FlagValueOf[K];
  /** The help text, printed as given (upstream's wording for upstream's flags). */
  usage: string;
  /** Marked deprecated: still accepted, with a warning printed when used. */
  deprecated?: string;
  /** Extra validation after parsing; throw an Error whose message says what is wrong and how to fix it. */
  validate?: (value: FlagValueOf[K]) => void;
  /**
   * Receives the flag's final value (given or default) once every flag has parsed and validated — the
   * counterpart of pflag's `StringVar(&v, ...)`. Vendors bind their own flags to their provider's settings
   * this way; the provider factory runs after parsing, so it sees the bound values.
   */
  bind?: (value: FlagValueOf[K]) => void;
  /**
   * The value type the help shows when it differs from the kind's (pflag `Value.Type()`): `int32`, `float32`,
   * `Level`, `quantity`, `int32Slice`, `namedCertKey`, …, so that `--help` reads as upstream's.
   */
  typeName?: string;
  /**
   * The value a bare `--flag` (no `=value`) sets, for a non-boolean flag (pflag `NoOptDefVal`, as
   * `--version` → `true`); the help shows it as `type[=value]`.
   */
  noOptDefVal?: string;
  /**
   * The default as the help prints it (pflag `DefValue`) when the kind's rendering is not upstream's; `''`
   * prints none (pflag's zero values: `false`, `0`, …).
   */
  defaultText?: string;
}

/** A thrown error for bad command-line input; `flag` names the offending flag when known. */
export class FlagError extends Error {
  constructor(
    message: string,
    /** The long name of the offending flag, without dashes, when known. */
    readonly flag?: string,
  ) {
    super(message);
    this.name = 'FlagError';
  }
}

/** A named group of flags (for example `generic`, `leader-election`), as upstream's NamedFlagSets. */
export class FlagSet {
  /** The set's flags by long name, in definition order (the order the help prints them). */
  readonly flags = new Map<string, FlagDefinition>();

  constructor(
    /** The help section's name, for example `generic` (the help prints `<Name> flags:`). */
    readonly name: string,
  ) {}

  /** Defines a flag; throws when the name is already defined in this set. */
  add<K extends FlagKind>(def: FlagDefinition<K>): this {
    if (this.flags.has(def.name)) throw new Error(`flag redefined: ${def.name}`);
    this.flags.set(def.name, def as unknown as FlagDefinition);
    return this;
  }

  /** Defines a free-text flag with default `def`. @throws Error when the name is already defined in this set. */
  string(name: string, def: string, usage: string, extra: Partial<FlagDefinition<'string'>> = {}): this {
    return this.add({ name, kind: 'string', default: def, usage, ...extra });
  }
  /** An IP-address flag (pflag `IPVar`): anything but an IPv4 or IPv6 address is rejected at parsing. */
  ip(name: string, def: string, usage: string, extra: Partial<FlagDefinition<'ip'>> = {}): this {
    return this.add({ name, kind: 'ip', default: def, usage, ...extra });
  }
  /** Defines a boolean flag with default `def`. @throws Error when the name is already defined in this set. */
  bool(name: string, def: boolean, usage: string, extra: Partial<FlagDefinition<'bool'>> = {}): this {
    return this.add({ name, kind: 'bool', default: def, usage, ...extra });
  }
  /**
   * Defines an integer flag with default `def`; a non-integer value fails parsing with Go's `strconv.ParseInt` message.
   * @throws Error when the name is already defined in this set.
   */
  int(name: string, def: number, usage: string, extra: Partial<FlagDefinition<'int'>> = {}): this {
    return this.add({ name, kind: 'int', default: def, usage, ...extra });
  }
  /**
   * Defines a number flag with default `def`; a non-number fails parsing with Go's `strconv.ParseFloat` message.
   * @throws Error when the name is already defined in this set.
   */
  float(name: string, def: number, usage: string, extra: Partial<FlagDefinition<'float'>> = {}): this {
    return this.add({ name, kind: 'float', default: def, usage, ...extra });
  }
  /** A Go-duration flag; `defMs` and the parsed value are in milliseconds. */
  duration(name: string, defMs: number, usage: string, extra: Partial<FlagDefinition<'duration'>> = {}): this {
    return this.add({ name, kind: 'duration', default: defMs, usage, ...extra });
  }
  /**
   * Defines a comma-separated list flag (pflag `StringSlice`) with default `def`. @throws Error when the name is
   * already defined in this set.
   */
  stringSlice(name: string, def: string[], usage: string, extra: Partial<FlagDefinition<'stringSlice'>> = {}): this {
    return this.add({ name, kind: 'stringSlice', default: def, usage, ...extra });
  }
  /** A repeatable flag whose values are kept whole (pflag `StringArray`: no comma splitting). */
  stringArray(name: string, def: string[], usage: string, extra: Partial<FlagDefinition<'stringArray'>> = {}): this {
    return this.add({ name, kind: 'stringArray', default: def, usage, ...extra });
  }
  /**
   * Defines a `key=bool` map flag (component-base `MapStringBool`) with default `def`. @throws Error when the name is
   * already defined in this set.
   */
  mapStringBool(
    name: string,
    def: Record<string, boolean>,
    usage: string,
    extra: Partial<FlagDefinition<'mapStringBool'>> = {},
  ): this {
    return this.add({ name, kind: 'mapStringBool', default: def, usage, ...extra });
  }
}

/** Parsed flags: values by long name, and which flags were set explicitly. */
export interface ParsedFlags {
  /** Every flag's final value by long name, defaults included, typed as its kind ({@link FlagValueOf}). */
  values: Record<string, unknown>;
  /** Long names given on the command line. */
  changed: Set<string>;
  /** Positional arguments (the CCM rejects any). */
  args: string[];
  /** Deprecation warnings for flags that were used. */
  warnings: string[];
}

const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Parses a boolean as Go's `strconv.ParseBool`; undefined when it is not one. */
export function parseGoBool(s: string): boolean | undefined {
  if (GO_TRUE.has(s)) return true;
  if (GO_FALSE.has(s)) return false;
  return undefined;
}

function parseValue(def: FlagDefinition, raw: string, previous: unknown): unknown {
  switch (def.kind) {
    case 'string':
      return raw;
    case 'ip': {
      // pflag ipValue.Set: net.ParseIP(strings.TrimSpace(s)), `failed to parse IP: "<s>"` otherwise.
      const ip = raw.trim();
      if (isIP(ip) === 0) throw new Error(`failed to parse IP: ${JSON.stringify(raw)}`);
      return ip;
    }
    case 'bool': {
      const b = parseGoBool(raw);
      if (b === undefined) throw new Error(`strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
      return b;
    }
    case 'int': {
      if (!/^[+-]?\d+$/.test(raw)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(raw)}: invalid syntax`);
      return Number.parseInt(raw, 10);
    }
    case 'float': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n))
        throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(raw)}: invalid syntax`);
      return n;
    }
    case 'duration':
      return parseGoDuration(raw);
    case 'stringSlice': {
      // pflag: the first use replaces the default, later uses append.
      const items = raw === '' ? [] : raw.split(',');
      return Array.isArray(previous) ? [...previous, ...items] : items;
    }
    case 'stringArray':
      // pflag: the first use replaces the default, later uses append; values are not split.
      return Array.isArray(previous) ? [...previous, raw] : [raw];
    case 'mapStringBool': {
      const out: Record<string, boolean> = { ...((previous as Record<string, boolean>) ?? {}) };
      for (const pair of raw.split(',')) {
        const item = pair.trim();
        if (item === '') continue;
        const eq = item.indexOf('=');
        if (eq < 0) throw new Error(`missing bool value for ${item}`);
        const key = item.slice(0, eq).trim();
        const b = parseGoBool(item.slice(eq + 1).trim());
        if (b === undefined) throw new Error(`invalid value of ${key}: ${item.slice(eq + 1)}, err: invalid syntax`);
        out[key] = b;
      }
      return out;
    }
  }
}

/**
 * Parses `argv` (without the node and script entries) against the flag sets.
 * @throws FlagError on an unknown flag, a missing or invalid value, or a failed validation — one error naming the flag.
 */
export function parseFlags(argv: readonly string[], sets: readonly FlagSet[]): ParsedFlags {
  const byName = new Map<string, FlagDefinition>();
  const byShort = new Map<string, FlagDefinition>();
  for (const set of sets) {
    for (const def of set.flags.values()) {
      if (byName.has(def.name)) throw new Error(`flag redefined: ${def.name} (in flag set ${set.name})`);
      byName.set(def.name, def);
      if (def.shorthand) byShort.set(def.shorthand, def);
    }
  }
  const values: Record<string, unknown> = {};
  for (const def of byName.values()) values[def.name] = structuredClone(def.default);
  const changed = new Set<string>();
  const args: string[] = [];
  const warnings: string[] = [];

  const set = (def: FlagDefinition, raw: string, shown: string) => {
    let v: unknown;
    try {
      v = parseValue(def, raw, changed.has(def.name) ? values[def.name] : undefined);
      (def.validate as ((x: unknown) => void) | undefined)?.(v);
    } catch (e) {
      throw new FlagError(
        `invalid argument ${JSON.stringify(raw)} for "${shown}" flag: ${(e as Error).message}`,
        def.name,
      );
    }
    values[def.name] = v;
    changed.add(def.name);
    if (def.deprecated) warnings.push(`Flag --${def.name} has been deprecated, ${def.deprecated}`);
  };

  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-') {
      args.push(a);
      continue;
    }
    const long = a.startsWith('--');
    const body = a.slice(long ? 2 : 1);
    const eq = body.indexOf('=');
    const name = eq >= 0 ? body.slice(0, eq) : body;
    const def = long ? byName.get(name) : (byShort.get(name) ?? (name.length > 1 ? byName.get(name) : undefined));
    const shown = long ? `--${name}` : `-${name}`;
    if (!def) {
      throw new FlagError(long ? `unknown flag: --${name}` : `unknown shorthand flag: '${name}' in -${name}`, name);
    }
    if (eq >= 0) {
      set(def, body.slice(eq + 1), shown);
    } else if (def.noOptDefVal !== undefined) {
      set(def, def.noOptDefVal, shown);
    } else if (def.kind === 'bool') {
      set(def, 'true', shown);
    } else {
      const next = argv[i + 1];
      if (next === undefined) throw new FlagError(`flag needs an argument: ${shown}`, def.name);
      set(def, next, shown);
      i++;
    }
  }
  for (const def of byName.values()) (def.bind as ((x: unknown) => void) | undefined)?.(values[def.name]);
  return { values, changed, args, warnings };
}

/**
 * pflag's `DefValue` text of a default, or undefined when pflag treats it as the zero value and prints no
 * `(default …)` (pflag `Flag.defaultIsZeroValue`).
 */
function defaultValueText(def: FlagDefinition): string | undefined {
  if (def.defaultText !== undefined) return def.defaultText === '' ? undefined : def.defaultText;
  const v = def.default;
  switch (def.kind) {
    case 'string':
      return v === '' ? undefined : JSON.stringify(v);
    case 'ip':
      return v === '' ? undefined : (v as string);
    case 'bool':
      return v ? 'true' : undefined;
    case 'int':
    case 'float':
      return v === 0 ? undefined : String(v);
    case 'duration':
      return v === 0 ? undefined : formatGoDuration(v as number);
    case 'stringSlice':
    case 'stringArray':
      return (v as string[]).length ? `[${(v as string[]).join(',')}]` : undefined;
    case 'mapStringBool':
      return undefined;
  }
}

const TYPE_NAME: Record<FlagKind, string> = {
  string: 'string',
  ip: 'ip',
  bool: '',
  int: 'int',
  float: 'float',
  duration: 'duration',
  stringSlice: 'strings',
  stringArray: 'stringArray',
  mapStringBool: 'mapStringBool',
};

/** The name column of one flag (pflag `FlagUsagesWrapped`): `  -v, --v Level`, `      --version version[=true]`. */
function nameColumn(d: FlagDefinition): string {
  const type = d.typeName ?? TYPE_NAME[d.kind];
  const noOpt = d.noOptDefVal !== undefined ? `[=${d.noOptDefVal}]` : '';
  return `${d.shorthand ? `  -${d.shorthand}, ` : '      '}--${d.name}${type ? ` ${type}` : ''}${noOpt}`;
}

/**
 * One help section as spf13/pflag `FlagSet.FlagUsagesWrapped(0)` prints it: flags sorted by name, the usage
 * column aligned after the longest name column, continuation lines of a usage indented to that column,
 * `(default …)` unless the default is the zero value. Deprecated flags are hidden, as pflag's `MarkDeprecated`
 * hides them.
 */
function formatSection(defs: readonly FlagDefinition[]): string {
  const shown = defs.filter((d) => !d.deprecated).sort((a, b) => a.name.localeCompare(b.name));
  const width = Math.max(...shown.map((d) => nameColumn(d).length));
  return shown
    .map((d) => {
      const head = nameColumn(d);
      const dflt = defaultValueText(d);
      const usage = `${d.usage}${dflt === undefined ? '' : ` (default ${dflt})`}`;
      return `${head}${' '.repeat(width - head.length + 3)}${usage.replaceAll('\n', `\n${' '.repeat(width + 3)}`)}\n`;
    })
    .join('');
}

/**
 * Renders help text as upstream's `cliflag.PrintSections` (k8s.io/component-base cli/flag/sectioned.go):
 * for each non-empty set, a blank line, `<Name> flags:`, a blank line and the set's flags.
 */
export function formatHelp(sets: readonly FlagSet[]): string {
  let out = '';
  for (const set of sets) {
    if (![...set.flags.values()].some((d) => !d.deprecated)) continue;
    out += `\n${set.name[0]!.toUpperCase()}${set.name.slice(1)} flags:\n\n${formatSection([...set.flags.values()])}`;
  }
  return out;
}
