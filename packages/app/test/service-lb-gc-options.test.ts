/**
 * The flags of service-lb-gc-controller (`--lb-gc-mode`, `--lb-gc-grace-period`, `--lb-gc-period`) and its place
 * in the controller table: off under `*`, on when named in `--controllers`.
 */
import { defaultLoadBalancerGCConfig, serviceLbGcController } from '@ccm-kit/controllers';
import { describe, expect, it } from 'vitest';
import { parseFlags } from '../src/flags/flag-set.js';
import { allControllers } from '../src/index.js';
import { cloudControllerManagerFlagSets } from '../src/options/ccm-flags.js';
import { buildConfig, ConfigError } from '../src/options/config.js';
import { controllerAliases, isControllerEnabled } from '../src/options/controller-selection.js';

const descriptors = allControllers();
const known = {
  controllers: descriptors.map((d) => d.name).sort(),
  controllerAliases: controllerAliases(descriptors),
  webhooks: [],
};
const build = (argv: string[]) =>
  buildConfig(parseFlags(['--cloud-provider=fake', ...argv], cloudControllerManagerFlagSets()), known);

function problems(argv: string[]): string[] {
  try {
    build(argv);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('service-lb-gc-controller flags', () => {
  it('default to a dry run, a 10 minute grace period and a 5 minute period', () => {
    expect(build([]).controllerConfig.loadBalancerGC).toEqual(defaultLoadBalancerGCConfig);
    expect(defaultLoadBalancerGCConfig).toEqual({ mode: 'dry-run', gracePeriodMs: 600_000, periodMs: 300_000 });
  });

  it('take Go durations and the two modes', () => {
    expect(
      build(['--lb-gc-mode=delete', '--lb-gc-grace-period=1m30s', '--lb-gc-period=20s']).controllerConfig
        .loadBalancerGC,
    ).toEqual({ mode: 'delete', gracePeriodMs: 90_000, periodMs: 20_000 });
    expect(build(['--lb-gc-grace-period=0s']).controllerConfig.loadBalancerGC?.gracePeriodMs).toBe(0);
  });

  it('an unknown mode, a negative grace period and a zero period are errors naming the flag and the fix', () => {
    expect(problems(['--lb-gc-mode=purge'])).toEqual(['--lb-gc-mode must be one of dry-run, delete, got "purge"']);
    expect(problems(['--lb-gc-grace-period=-1m'])).toEqual([
      '--lb-gc-grace-period must not be negative (for example 10m), got -60000 ms',
    ]);
    expect(problems(['--lb-gc-period=0s'])).toEqual([
      '--lb-gc-period must be greater than zero (for example 5m), got 0 ms',
    ]);
  });
});

describe('service-lb-gc-controller in the controller table', () => {
  it('is registered after the four built-ins and disabled by default', () => {
    expect(descriptors.map((d) => d.name)).toContain('service-lb-gc-controller');
    expect(descriptors.indexOf(serviceLbGcController)).toBe(4);
    const off = new Set(descriptors.filter((d) => d.disabledByDefault).map((d) => d.name));
    expect(off.has('service-lb-gc-controller')).toBe(true);
    expect(descriptors.slice(0, 4).every((d) => !d.disabledByDefault)).toBe(true);
    expect(isControllerEnabled('service-lb-gc-controller', off, ['*'])).toBe(false);
    expect(isControllerEnabled('service-lb-gc-controller', off, ['*', 'service-lb-gc-controller'])).toBe(true);
    expect(build(['--controllers=*,service-lb-gc-controller']).controllers).toEqual(['*', 'service-lb-gc-controller']);
  });
});
