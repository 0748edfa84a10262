/**
 * Controller leader migration (`--enable-leader-migration`, `--leader-migration-config`; upstream `k8s.io/controller-manager pkg/leadermigration`).
 * Follows k8s.io/controller-manager `pkg/leadermigration` (`LeaderMigrator.FilterFunc`,
 * `DefaultLeaderMigrationConfiguration`, `ReadLeaderMigrationConfiguration`) and its config validation:
 * controllers listed for this component (or `*`) run under the migration lease, controllers listed for another
 * component run in neither lease, and the rest run under the main lease.
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';

/** One `controllerLeaders` entry. */
export interface ControllerLeader {
  /** Controller name, compared with the manager's canonical names as given (no alias resolution). */
  name: string;
  /** The component that runs it during migration: `cloud-controller-manager`, `kube-controller-manager` or `*`. */
  component: string;
}

/** `LeaderMigrationConfiguration` (group `controllermanager.config.k8s.io`). */
export interface LeaderMigrationConfig {
  /** The migration lease's name (same namespace as the main lease). */
  leaderName: string;
  /** Only `leases`. */
  resourceLock: string;
  controllerLeaders: ControllerLeader[];
}

/** This component's name in `controllerLeaders[].component`. */
export const CCM_COMPONENT = 'cloud-controller-manager';

/**
 * Upstream's built-in configuration (no `--leader-migration-config`). Its names are the KCM's
 * (`route-controller`, `service-controller`), not the CCM's canonical ones, so — as upstream — only
 * `cloud-node-lifecycle-controller` moves to the migration lease by default.
 */
export function defaultLeaderMigrationConfig(): LeaderMigrationConfig {
  return {
    leaderName: 'cloud-provider-extraction-migration',
    resourceLock: 'leases',
    controllerLeaders: [
      { name: 'route-controller', component: '*' },
      { name: 'service-controller', component: '*' },
      { name: 'cloud-node-lifecycle-controller', component: '*' },
    ],
  };
}

const API_VERSIONS = new Set([
  'controllermanager.config.k8s.io/v1',
  'controllermanager.config.k8s.io/v1beta1',
  'controllermanager.config.k8s.io/v1alpha1',
]);

/** A bad `--leader-migration-config`: the message names the flag, the file and every problem. */
export class LeaderMigrationConfigError extends Error {
  constructor(path: string, problems: readonly string[]) {
    super(`--leader-migration-config ${path}: ${problems.join('; ')}`);
    this.name = 'LeaderMigrationConfigError';
  }
}

/**
 * Field problems, in upstream's wording (`leaderName: Required value: …`, `resourceLock: Invalid value: …`,
 * `controllerLeaders[i].name: Required value: …`, `… component: Required value: …`).
 */
export function validateLeaderMigrationConfig(c: LeaderMigrationConfig): string[] {
  const errs: string[] = [];
  if (!c.leaderName) errs.push('leaderName: Required value: leaderName must be set for LeaderMigrationConfiguration');
  if (c.resourceLock !== 'leases') {
    errs.push(`resourceLock: Invalid value: ${JSON.stringify(c.resourceLock)}: resource Lock must be leases`);
  }
  const seen = new Set<string>();
  c.controllerLeaders.forEach((l, i) => {
    const at = `controllerLeaders[${i}]`;
    if (!l.name) errs.push(`${at}.name: Required value: name must be set for ControllerLeaderConfiguration`);
    if (!l.component) {
      errs.push(`${at}.component: Required value: component must be set for ControllerLeaderConfiguration`);
    }
    if (l.name && seen.has(l.name)) errs.push(`${at}.name: Duplicate value: ${JSON.stringify(l.name)}`);
    seen.add(l.name);
  });
  return errs;
}

/**
 * Reads, defaults (`resourceLock` → `leases`) and validates a configuration file (YAML or JSON).
 * @throws LeaderMigrationConfigError for an unreadable file, a wrong kind or apiVersion, or invalid fields.
 */
export async function readLeaderMigrationConfig(path: string): Promise<LeaderMigrationConfig> {
  let doc: unknown;
  try {
    doc = parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new LeaderMigrationConfigError(path, [`cannot read: ${(err as Error).message}`]);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new LeaderMigrationConfigError(path, ['not a LeaderMigrationConfiguration object']);
  }
  const o = doc as Record<string, unknown>;
  const problems: string[] = [];
  if (o.kind !== 'LeaderMigrationConfiguration') {
    problems.push(`kind must be LeaderMigrationConfiguration, got ${JSON.stringify(o.kind ?? '')}`);
  }
  if (typeof o.apiVersion !== 'string' || !API_VERSIONS.has(o.apiVersion)) {
    problems.push(
      `apiVersion must be one of ${[...API_VERSIONS].join(', ')}, got ${JSON.stringify(o.apiVersion ?? '')}`,
    );
  }
  const leaders = Array.isArray(o.controllerLeaders) ? o.controllerLeaders : [];
  if (o.controllerLeaders !== undefined && o.controllerLeaders !== null && !Array.isArray(o.controllerLeaders)) {
    problems.push('controllerLeaders must be a list');
  }
  const config: LeaderMigrationConfig = {
    leaderName: typeof o.leaderName === 'string' ? o.leaderName : '',
    resourceLock: typeof o.resourceLock === 'string' && o.resourceLock !== '' ? o.resourceLock : 'leases',
    controllerLeaders: leaders.map((l) => {
      const e = (typeof l === 'object' && l !== null ? l : {}) as Record<string, unknown>;
      return {
        name: typeof e.name === 'string' ? e.name : '',
        component: typeof e.component === 'string' ? e.component : '',
      };
    }),
  };
  problems.push(...validateLeaderMigrationConfig(config));
  if (problems.length > 0) throw new LeaderMigrationConfigError(path, problems);
  return config;
}

/** Where a controller runs during migration. */
export type MigrationPlacement = 'migrated' | 'unowned' | 'non-migrated';

/** Upstream `LeaderMigrator.FilterFunc` for `component`. */
export function migrationPlacement(
  config: LeaderMigrationConfig,
  controllerName: string,
  component = CCM_COMPONENT,
): MigrationPlacement {
  const leader = config.controllerLeaders.find((l) => l.name === controllerName);
  if (!leader) return 'non-migrated';
  return leader.component === component || leader.component === '*' ? 'migrated' : 'unowned';
}
