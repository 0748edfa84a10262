/**
 * Command-line flags of the control-plane processes: defaults merged with user overrides, in the
 * spirit of envtest's `Configure().Set/Append/Disable` (`pkg/internal/testing/process/arguments.go`).
 */

/**
 * User flag settings, keyed by flag name without dashes (`'feature-gates'`):
 * a string sets the flag, an array repeats it once per value, `null` removes a default.
 */
export type FlagOverrides = Readonly<Record<string, string | readonly string[] | null>>;

/** Flag name → values (one `--name=value` per value). */
export type FlagMap = Map<string, string[]>;

/**
 * Applies `overrides` over `defaults` (a new map; the inputs are not changed).
 * @throws Error naming the flag when a name starts with `-` or is empty.
 */
export function mergeFlags(defaults: FlagMap, overrides: FlagOverrides = {}): FlagMap {
  const out: FlagMap = new Map([...defaults].map(([k, v]) => [k, [...v]]));
  for (const [name, value] of Object.entries(overrides)) {
    if (name === '' || name.startsWith('-')) {
      throw new Error(`flag name ${JSON.stringify(name)}: give it without leading dashes, e.g. "feature-gates"`);
    }
    if (value === null) out.delete(name);
    else out.set(name, typeof value === 'string' ? [value] : [...value]);
  }
  return out;
}

/** Renders `--name=value` arguments in insertion order. */
export function renderFlags(flags: FlagMap): string[] {
  const args: string[] = [];
  for (const [name, values] of flags) for (const v of values) args.push(`--${name}=${v}`);
  return args;
}
