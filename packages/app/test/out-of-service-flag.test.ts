/** `--out-of-service-taint-after`: off (0) by default, a Go duration, negative refused, in its help section. */
import { registeredControllers } from '@ccm-kit/controllers/internal';
import { describe, expect, it } from 'vitest';
import { formatHelp } from '../src/flags/flag-set.js';
import { cloudControllerManagerFlagSets, helpNames } from '../src/options/ccm-flags.js';
import { configure } from '../src/options/configure.js';
import { baseArgv } from './config-problems.js';

describe('--out-of-service-taint-after', () => {
  it('is 0 (off) by default and read as milliseconds', () => {
    expect(configure(baseArgv, registeredControllers).controllerConfig.outOfServiceTaintAfterMs).toBe(0);
    const c = configure([...baseArgv, '--out-of-service-taint-after=5m'], registeredControllers);
    expect(c.controllerConfig.outOfServiceTaintAfterMs).toBe(300_000);
  });

  it('refuses a negative duration, naming the flag', () => {
    expect(() => configure([...baseArgv, '--out-of-service-taint-after=-1s'], registeredControllers)).toThrow(
      /out-of-service-taint-after/,
    );
  });

  it('is listed in the cloud-node-lifecycle-controller section', () => {
    const help = formatHelp(cloudControllerManagerFlagSets(helpNames(registeredControllers, [])));
    const section = help.slice(help.indexOf('Cloud-node-lifecycle-controller flags:'));
    expect(section).toMatch(/--out-of-service-taint-after duration/);
  });
});
