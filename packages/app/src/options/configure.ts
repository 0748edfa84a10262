/**
 * The configuration step of the manager: flags (with the vendor's flag sets and code defaults) → parsed
 * values → validated {@link CloudControllerManagerConfig}. Every check on flags happens here, before the
 * provider, a client or a server starts, and each problem names its flag (upstream `NewCloudControllerManagerCommand`
 * → `s.Config(...)` → `Validate`).
 */
import type { ControllerDescriptor } from '@ccm-kit/controllers';
import { createLogger } from '@ccm-kit/runtime';
import { StartupError } from '../errors.js';
import { type FlagSet, parseFlags } from '../flags/flag-set.js';
import { cloudControllerManagerFlagSets, helpNames } from './ccm-flags.js';
import { buildConfig, type CloudControllerManagerConfig } from './config.js';
import { controllerAliases } from './controller-selection.js';

/** Flag defaults set in code, by flag name (for example `{ 'cloud-provider': 'mycloud' }`); flags still win. */
export type FlagDefaults = Readonly<Record<string, string | number | boolean | string[]>>;

/**
 * Parses flags (with code defaults) and builds the validated configuration.
 * @throws FlagError for an unknown flag or a value of the wrong form; ConfigError listing every invalid value;
 *   StartupError for positional arguments.
 */
export function configure(
  argv: readonly string[],
  descriptors: readonly ControllerDescriptor[],
  flagSets: readonly FlagSet[] = [],
  defaults: FlagDefaults = {},
  webhookNames: readonly string[] = [],
): CloudControllerManagerConfig {
  const sets = [...cloudControllerManagerFlagSets(helpNames(descriptors, webhookNames)), ...flagSets];
  for (const set of sets) {
    for (const [name, value] of Object.entries(defaults)) {
      const def = set.flags.get(name);
      if (def) def.default = value as never;
    }
  }
  const parsed = parseFlags(argv, sets);
  if (parsed.args.length > 0) {
    throw new StartupError(
      `"cloud-controller-manager" does not take any arguments, got [${parsed.args.map((a) => JSON.stringify(a)).join(' ')}]`,
    );
  }
  const config = buildConfig(parsed, {
    controllers: descriptors.map((d) => d.name).sort(),
    controllerAliases: controllerAliases(descriptors),
    webhooks: [...webhookNames].sort(),
  });
  for (const w of parsed.warnings) createLogger('flags').warn(w);
  return config;
}
