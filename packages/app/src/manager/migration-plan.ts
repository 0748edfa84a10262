/**
 * Where each controller runs under leader migration (upstream `app.Run`: with `--leader-elect` and
 * `--enable-leader-migration`, controllers the migration configuration gives to this component run under the
 * migration lease, those given to another component run nowhere, the rest run under the main lease).
 */
import type { ControllerDescriptor } from '@ccm-kit/controllers';
import type { Logger } from '@ccm-kit/runtime';
import { StartupError } from '../errors.js';
import type { CloudControllerManagerConfig } from '../options/config.js';
import {
  defaultLeaderMigrationConfig,
  type LeaderMigrationConfig,
  migrationPlacement,
  readLeaderMigrationConfig,
} from './leader-migration.js';

/** The controllers of each lease. */
export interface MigrationPlan {
  /** The migration configuration, or undefined when leader migration is off. */
  readonly migration: LeaderMigrationConfig | undefined;
  /** Controllers under the main lease (every controller without migration). */
  readonly main: readonly ControllerDescriptor[];
  /** Controllers under the migration lease (none without migration). */
  readonly migrated: readonly ControllerDescriptor[];
}

/** @throws StartupError for an unreadable or invalid `--leader-migration-config`. */
export async function planLeaderMigration(
  config: CloudControllerManagerConfig,
  descriptors: readonly ControllerDescriptor[],
  logger: Logger,
): Promise<MigrationPlan> {
  const off: MigrationPlan = { migration: undefined, main: descriptors, migrated: [] };
  if (!config.leaderMigration.enabled) return off;
  if (!config.leaderElection.leaderElect) {
    logger.warn('--enable-leader-migration has no effect without --leader-elect');
    return off;
  }
  let migration: LeaderMigrationConfig;
  try {
    migration = config.leaderMigration.configFile
      ? await readLeaderMigrationConfig(config.leaderMigration.configFile)
      : defaultLeaderMigrationConfig();
  } catch (err) {
    throw new StartupError((err as Error).message, { cause: err });
  }
  warnUnmatchedMigrationNames(migration, descriptors, logger);
  return {
    migration,
    main: descriptors.filter((d) => migrationPlacement(migration, d.name) === 'non-migrated'),
    migrated: descriptors.filter((d) => migrationPlacement(migration, d.name) === 'migrated'),
  };
}

/**
 * Upstream matches migration names against canonical controller names only, so a KCM-style name such as
 * `service-controller` moves nothing; say so once, naming the controller it probably meant.
 */
function warnUnmatchedMigrationNames(
  migration: LeaderMigrationConfig,
  descriptors: readonly ControllerDescriptor[],
  logger: Logger,
): void {
  const names = new Set(descriptors.map((d) => d.name));
  for (const l of migration.controllerLeaders) {
    if (names.has(l.name)) continue;
    const stem = l.name.replace(/-controller$/, '');
    const guess = descriptors.find((d) => d.aliases?.includes(stem) || d.name.endsWith(`-${l.name}`));
    logger.warn(
      `leader migration: ${JSON.stringify(l.name)} names no controller of this manager, so it stays under the main lease` +
        (guess ? ` (the cloud-controller-manager calls it ${JSON.stringify(guess.name)})` : ''),
    );
  }
}
