/**
 * `--enable-leader-migration` and `--leader-migration-config`, as k8s.io/controller-manager
 * `pkg/leadermigration/options` (the file itself is read and validated at start-up, see
 * `manager/leader-migration.ts`).
 */
import { bool, type OptionGroup, str } from './option-group.js';

/** `--enable-leader-migration` (effective only with `--leader-elect`) and `--leader-migration-config`. */
export interface LeaderMigrationOptionsConfig {
  /** `--enable-leader-migration`. */
  enabled: boolean;
  /**
   * `--leader-migration-config`: path of a `LeaderMigrationConfiguration` file; empty uses upstream's default
   * configuration.
   */
  configFile: string;
}

export const leaderMigrationOptions: OptionGroup<LeaderMigrationOptionsConfig> = {
  addFlags(fss) {
    fss
      .flagSet('leader-migration')
      .bool('enable-leader-migration', false, 'Whether to enable controller leader migration.')
      .string(
        'leader-migration-config',
        '',
        'Path to the config file for controller leader migration, or empty to use the value that reflects default configuration of the controller manager. The config file should be of type LeaderMigrationConfiguration, group controllermanager.config.k8s.io, version v1alpha1.',
      );
  },
  validate: () => [],
  applyTo: (v) => ({ enabled: bool(v, 'enable-leader-migration'), configFile: str(v, 'leader-migration-config') }),
};
