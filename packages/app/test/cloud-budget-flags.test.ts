/**
 * `--cloud-api-qps` / `--cloud-api-burst` are validated before anything starts, naming the flag and the fix;
 * unset, no budget is made (upstream behaviour).
 */
import { builtInControllers } from '@ccm-kit/controllers';
import { describe, expect, it } from 'vitest';
import { FlagError } from '../src/index.js';
import { configure } from '../src/options/configure.js';
import { baseArgv, problemsOf } from './config-problems.js';

describe('--cloud-api-qps and --cloud-api-burst', () => {
  it('unset: no budget (no limit)', () => {
    expect(configure(baseArgv, builtInControllers).cloudApiBudget).toBeUndefined();
  });

  it.each([
    [['--cloud-api-qps=10', '--cloud-api-burst=20'], { qps: 10, burst: 20 }],
    [['--cloud-api-qps=2.5'], { qps: 2.5, burst: 3 }],
    [['--cloud-api-qps=0.2'], { qps: 0.2, burst: 1 }],
  ])('%j gives %j (burst unset: one second of qps, at least 1)', (argv, budget) => {
    expect(configure([...baseArgv, ...argv], builtInControllers).cloudApiBudget).toEqual(budget);
  });

  it.each([
    [['--cloud-api-qps=-1'], '--cloud-api-qps must be a number of calls per second > 0 (or 0 for no limit), got -1'],
    [
      ['--cloud-api-qps=5', '--cloud-api-burst=-2'],
      '--cloud-api-burst must be an integer >= 1 (or 0 for one second of --cloud-api-qps), got -2',
    ],
    [
      ['--cloud-api-burst=20'],
      '--cloud-api-burst=20 needs --cloud-api-qps: set the calls per second too (for example --cloud-api-qps=20), or remove --cloud-api-burst',
    ],
  ])('rejects %j naming the flag and the fix', (argv, problem) => {
    expect(problemsOf(argv)).toEqual([problem]);
  });

  it.each([
    ['--cloud-api-qps=Inf', '--cloud-api-qps'],
    ['--cloud-api-qps=NaN', '--cloud-api-qps'],
    ['--cloud-api-qps=fast', '--cloud-api-qps'],
    ['--cloud-api-burst=1.5', '--cloud-api-burst'],
  ])('rejects %s at parsing, naming the flag', (flag, name) => {
    const bad = () => configure([...baseArgv, flag], builtInControllers);
    expect(bad).toThrow(FlagError);
    expect(bad).toThrow(`"${name}" flag`);
  });
});
