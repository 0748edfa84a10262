/**
 * Leader-migration configuration and placement (upstream `k8s.io/controller-manager pkg/leadermigration`; upstream quirk 35 in docs/upstream-quirks.md): the built-in default, the
 * canonical-name quirk, unowned controllers, file parsing and validation.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtInControllers } from '@ccm-kit/controllers';
import { describe, expect, it } from 'vitest';
import {
  defaultLeaderMigrationConfig,
  migrationPlacement,
  readLeaderMigrationConfig,
  validateLeaderMigrationConfig,
} from '../src/manager/leader-migration.js';

describe('leader migration placement', () => {
  it('with the built-in default only cloud-node-lifecycle-controller migrates (KCM names do not match)', () => {
    const d = defaultLeaderMigrationConfig();
    expect(d.leaderName).toBe('cloud-provider-extraction-migration');
    expect(d.resourceLock).toBe('leases');
    const placement = Object.fromEntries(builtInControllers.map((c) => [c.name, migrationPlacement(d, c.name)]));
    expect(placement).toEqual({
      'cloud-node-controller': 'non-migrated',
      'cloud-node-lifecycle-controller': 'migrated',
      'node-route-controller': 'non-migrated',
      'service-lb-controller': 'non-migrated',
    });
  });

  it('a controller listed for another component is unowned; for this component or * it is migrated', () => {
    const c = {
      leaderName: 'x',
      resourceLock: 'leases',
      controllerLeaders: [
        { name: 'a', component: 'kube-controller-manager' },
        { name: 'b', component: 'cloud-controller-manager' },
        { name: 'c', component: '*' },
      ],
    };
    expect(['a', 'b', 'c', 'd'].map((n) => migrationPlacement(c, n))).toEqual([
      'unowned',
      'migrated',
      'migrated',
      'non-migrated',
    ]);
  });
});

describe('leader migration configuration file', () => {
  const write = async (text: string) => {
    const file = join(await mkdtemp(join(tmpdir(), 'ccm-lmc-')), 'c.yaml');
    await writeFile(file, text);
    return file;
  };

  it('reads YAML (v1, v1beta1, v1alpha1) and defaults resourceLock to leases', async () => {
    for (const v of ['v1', 'v1beta1', 'v1alpha1']) {
      const file = await write(
        `kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/${v}\nleaderName: m\ncontrollerLeaders:\n- name: node-route-controller\n  component: "*"\n`,
      );
      expect(await readLeaderMigrationConfig(file)).toEqual({
        leaderName: 'm',
        resourceLock: 'leases',
        controllerLeaders: [{ name: 'node-route-controller', component: '*' }],
      });
    }
  });

  it('rejects a wrong kind/apiVersion and a missing file, naming the flag and the file', async () => {
    const file = await write('kind: Foo\napiVersion: v1\nleaderName: m\n');
    await expect(readLeaderMigrationConfig(file)).rejects.toThrow(
      `--leader-migration-config ${file}: kind must be LeaderMigrationConfiguration, got "Foo"; apiVersion must be one of`,
    );
    await expect(readLeaderMigrationConfig('/nonexistent/lm.yaml')).rejects.toThrow(
      /^--leader-migration-config \/nonexistent\/lm.yaml: cannot read: ENOENT/,
    );
  });

  it('validates names, components and duplicates', () => {
    expect(
      validateLeaderMigrationConfig({
        leaderName: 'm',
        resourceLock: 'leases',
        controllerLeaders: [
          { name: '', component: '*' },
          { name: 'a', component: '*' },
          { name: 'a', component: '' },
        ],
      }),
    ).toEqual([
      'controllerLeaders[0].name: Required value: name must be set for ControllerLeaderConfiguration',
      'controllerLeaders[2].component: Required value: component must be set for ControllerLeaderConfiguration',
      'controllerLeaders[2].name: Duplicate value: "a"',
    ]);
  });
});
