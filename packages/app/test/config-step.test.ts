/**
 * The configuration step rejects bad flag values before anything starts, naming the flag (regressions: checks
 * that used to fail only after the provider or the controllers had started, or not at all).
 */
import { builtInControllers, DEFAULT_HOST_UPDATE_WINDOW_MS } from '@ccm-kit/controllers';
import { describe, expect, it } from 'vitest';
import { ConfigError, FlagError, startCloudControllerManager } from '../src/index.js';
import { configure } from '../src/options/configure.js';
import { baseArgv, problemsOf } from './config-problems.js';

describe('leader-election durations (component-base validation + client-go NewLeaderElector rules)', () => {
  it.each([
    ['--leader-elect-lease-duration=-15s', '--leader-elect-lease-duration must be greater than zero, got -15s'],
    ['--leader-elect-renew-deadline=-1s', '--leader-elect-renew-deadline must be greater than zero, got -1s'],
    ['--leader-elect-retry-period=0', '--leader-elect-retry-period must be greater than zero, got 0s'],
  ])('rejects %s naming the flag', (flag, problem) => {
    expect(problemsOf([flag])).toEqual([problem]);
  });

  it('requires lease duration > renew deadline > retry period × 1.2', () => {
    expect(problemsOf(['--leader-elect-renew-deadline=15s'])).toEqual([
      '--leader-elect-renew-deadline must be less than --leader-elect-lease-duration',
    ]);
    expect(problemsOf(['--leader-elect-renew-deadline=0.5ms'])).toEqual([
      '--leader-elect-renew-deadline (500µs) must be greater than --leader-elect-retry-period × 1.2 (2.4s): raise the renew deadline or lower the retry period',
    ]);
    expect(problemsOf(['--leader-elect-renew-deadline=2.4s'])).toHaveLength(1);
  });

  it('keeps Go precision: 3.0005s is accepted as 3000.5 ms', () => {
    const c = configure([...baseArgv, '--leader-elect-renew-deadline=3.0005s'], builtInControllers);
    expect(c.leaderElection.renewDeadlineMs).toBeCloseTo(3000.5, 6);
  });

  it('checks nothing without --leader-elect, as component-base', () => {
    expect(problemsOf(['--leader-elect=false', '--leader-elect-lease-duration=-1s'])).toEqual([]);
  });

  it('fails before the provider is built', async () => {
    let built = false;
    const err = await startCloudControllerManager({
      argv: [...baseArgv, '--leader-elect-lease-duration=-5s'],
      get cloud() {
        built = true;
        return undefined;
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(built).toBe(false);
  });
});

describe('--concurrent-service-syncs (docs/decisions/0020)', () => {
  it.each([
    ['--concurrent-service-syncs=-1', ['--concurrent-service-syncs must be a positive number, got -1']],
    ['--concurrent-service-syncs=0', ['--concurrent-service-syncs must be a positive number, got 0']],
    ['--concurrent-service-syncs=5', []],
  ])('%s: %j', (flag, problems) => {
    expect(problemsOf([flag])).toEqual(problems);
  });
});

describe('--host-update-window (docs/decisions/0206)', () => {
  it("defaults to the controllers' default window and takes a Go duration; 0s is upstream's timing", () => {
    const window = (argv: string[]) =>
      configure([...baseArgv, ...argv], builtInControllers).controllerConfig.hostUpdateWindowMs;
    expect(window([])).toBe(DEFAULT_HOST_UPDATE_WINDOW_MS);
    expect(window(['--host-update-window=250ms'])).toBe(250);
    expect(window(['--host-update-window=0s'])).toBe(0);
  });
  it('a negative window is a configuration error naming the flag', () => {
    expect(problemsOf(['--host-update-window=-1s'])).toEqual([
      '--host-update-window must not be negative, got -1000ms',
    ]);
  });
});

describe('--service-status-conditions (docs/decisions/0208)', () => {
  it('is off by default (upstream writes no condition) and on when given', () => {
    const on = (argv: string[]) =>
      configure([...baseArgv, ...argv], builtInControllers).controllerConfig.serviceStatusConditions;
    expect(on([])).toBe(false);
    expect(on(['--service-status-conditions'])).toBe(true);
    expect(on(['--service-status-conditions=false'])).toBe(false);
  });
});

describe('--bind-address and --webhook-bind-address are IP flags (pflag IPVar)', () => {
  it('rejects a value that is not an IP address at parsing', () => {
    const bad = () => configure([...baseArgv, '--bind-address=not-an-ip'], builtInControllers);
    expect(bad).toThrow(FlagError);
    expect(bad).toThrow('invalid argument "not-an-ip" for "--bind-address" flag: failed to parse IP: "not-an-ip"');
    expect(() => configure([...baseArgv, '--webhook-bind-address=10.0.0'], builtInControllers)).toThrow(FlagError);
  });

  it('accepts IPv4 and IPv6 addresses', () => {
    expect(configure([...baseArgv, '--bind-address=::1'], builtInControllers).secureServing.bindAddress).toBe('::1');
    expect(configure([...baseArgv, '--bind-address= 127.0.0.1'], builtInControllers).secureServing.bindAddress).toBe(
      '127.0.0.1',
    );
  });
});
