/**
 * One flag group of the cloud-controller-manager, as upstream's `options/*.go` structs: its flags
 * (`AddFlags`), its validation (`Validate`) and what it contributes to the configuration (`ApplyTo`), side by
 * side in one module. `buildConfig` composes the groups; `cloudControllerManagerFlagSets` renders their flags
 * into the help sections.
 */
import { FlagSet } from '../flags/flag-set.js';

/** Parsed flag values by long name (`ParsedFlags.values`). */
export type FlagValues = Readonly<Record<string, unknown>>;

/** Names the configuration step needs to validate `--controllers` and `--webhooks`. */
export interface KnownNames {
  controllers: readonly string[];
  controllerAliases: Readonly<Record<string, string>>;
  webhooks: readonly string[];
}

/**
 * The names the help text lists under `--controllers` and `--webhooks` (upstream
 * `GenericControllerManagerConfigurationOptions.AddFlags(allControllers, disabledByDefaultControllers, …)`),
 * sorted.
 */
export interface HelpNames {
  controllers: readonly string[];
  controllersDisabledByDefault: readonly string[];
  webhooks: readonly string[];
}

/** Help sections by name, created in first-use order (upstream `cliflag.NamedFlagSets.FlagSet(name)`). */
export class NamedFlagSets {
  readonly #sets = new Map<string, FlagSet>();

  /** The section `name`, created empty on first use. */
  flagSet(name: string): FlagSet {
    let set = this.#sets.get(name);
    if (!set) {
      set = new FlagSet(name);
      this.#sets.set(name, set);
    }
    return set;
  }

  /** Every section, in creation order. */
  all(): FlagSet[] {
    return [...this.#sets.values()];
  }
}

/** One option group. `T` is the part of the configuration it yields. */
export interface OptionGroup<T> {
  /** Adds the group's flags to their help sections; `names` fill the `--controllers` and `--webhooks` texts. */
  addFlags(fss: NamedFlagSets, names: HelpNames): void;
  /** Problems after parsing, each naming its flag and the fix; empty when valid. */
  validate(values: FlagValues, known: KnownNames): string[];
  /** The group's part of the configuration (called only when every group validated). */
  applyTo(values: FlagValues, known: KnownNames): T;
}

/** Typed reads of parsed values (the flag kinds guarantee the types). */
export const str = (v: FlagValues, name: string): string => v[name] as string;
export const bool = (v: FlagValues, name: string): boolean => v[name] as boolean;
export const num = (v: FlagValues, name: string): number => v[name] as number;
export const list = (v: FlagValues, name: string): string[] => v[name] as string[];

/** Flag validators shared by several groups (run while parsing; the parser prefixes the flag name). */
export const portValidator = (flag: string) => (v: number) => {
  if (!Number.isInteger(v) || v < 0 || v > 65535) throw new Error(`${flag} must be between 0 and 65535, inclusive`);
};
export const nonNegative = (v: number) => {
  if (v < 0) throw new Error('must not be negative');
};
/** Periods of 0 would make the controller poll the cloud in a tight loop (docs/decisions/0101). */
export const positivePeriod = (v: number) => {
  if (!(v > 0)) throw new Error('must be greater than zero (0 would poll the cloud in a tight loop)');
};
