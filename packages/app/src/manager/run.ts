/**
 * `runCloudControllerManager()`: the vendor's `main`. Parses `process.argv`, handles `--help` and
 * `--version`, starts the manager, stops it on SIGTERM/SIGINT, and exits: 0 after a clean stop, 1 with one
 * clear message on bad flags, a bad provider or config, or a fatal runtime error (as upstream's command).
 * The manager's modules (API clients, informers, controllers, metrics) are imported only once the flags were
 * accepted, so that `--help`, `--version` and flag errors answer without loading them.
 */
import { errorMessage } from '@ccm-kit/cloud-provider/internal';
import { createLogger } from '@ccm-kit/runtime';
import { FlagError, formatHelp } from '../flags/flag-set.js';
import { cloudControllerManagerFlagSets, helpNames } from '../options/ccm-flags.js';
import { configure } from '../options/configure.js';
import type { StartOptions } from './manager.js';
import { allControllers } from './controller-registry.js';
import { rawVersion, versionLine } from './version.js';

/** Options of {@link runCloudControllerManager}: those of `startCloudControllerManager`, with `argv` defaulting to `process.argv`. */
export interface RunOptions extends Omit<StartOptions, 'signal'> {
  /** The exit function (tests). Default `process.exit`. */
  exit?: (code: number) => never | void;
}

const LONG_DESC =
  'The Cloud controller manager is a daemon that embeds\nthe cloud specific control loops shipped with Kubernetes.';

/**
 * Runs the cloud-controller-manager until SIGTERM/SIGINT, then exits the process.
 * Never resolves normally when `exit` is `process.exit`.
 */
export async function runCloudControllerManager(options: RunOptions = {}): Promise<void> {
  const argv = options.argv ?? process.argv.slice(2);
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const name = options.commandName ?? 'cloud-controller-manager';
  if (argv.includes('--help') || argv.includes('-h')) {
    const names = helpNames(allControllers(options.controllers), Object.keys(options.webhooks ?? {}));
    const flags = formatHelp([...cloudControllerManagerFlagSets(names), ...(options.flagSets ?? [])]);
    process.stdout.write(
      `${LONG_DESC}\n\nUsage:\n  ${name} [flags]\n${flags.replace('help for cloud-controller-manager', `help for ${name}`)}`,
    );
    exit(0);
    return;
  }
  // component-base `verflag`: `--version` and `--version=raw` print and quit; `--version=vX.Y.Z` sets the reported version.
  const versionFlag = argv.findLast((a) => a === '--version' || a.startsWith('--version='));
  const versionValue = versionFlag === '--version' ? 'true' : versionFlag?.slice('--version='.length);
  if (versionValue === 'true' || versionValue === 'raw') {
    process.stdout.write(
      versionValue === 'raw' ? rawVersion(name, options.version) : versionLine(name, options.version),
    );
    exit(0);
    return;
  }
  if (versionValue?.startsWith('v')) options = { ...options, version: versionValue };
  const log = createLogger(name);
  const signals = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    log.info('Received signal, shutting down', { signal: sig });
    signals.abort();
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  // The command runs until a signal or a fatal error, as upstream's waits on its context. With nothing else
  // pending (every controller disabled, no leader election, no secure port) Node would otherwise end the
  // process at once with exit 13 ("unsettled top-level await").
  const keepAlive = setInterval(() => {}, 2 ** 30);
  try {
    const descriptors = allControllers(options.controllers);
    const webhookNames = Object.keys(options.webhooks ?? {});
    const config = configure(argv, descriptors, options.flagSets, options.defaults, webhookNames);
    const { startConfiguredManager } = await import('./manager.js');
    const ccm = await startConfiguredManager({ ...options, argv, signal: signals.signal }, config, descriptors);
    await ccm.done;
    exit(0);
  } catch (err) {
    process.stderr.write(`Error: ${errorMessage(err)}\n`);
    if (err instanceof FlagError) process.stderr.write(`Run '${name} --help' for usage.\n`);
    exit(1);
  } finally {
    clearInterval(keepAlive);
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}
