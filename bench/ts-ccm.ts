/**
 * ts-ccm: ccm-kit's cloud-controller-manager with the fakebench in-process fake cloud registered: the
 * TypeScript counterpart of bench/upstream-ccm (run by bench/compare.ts, after `tsc -b`).
 *
 *   node bench/ts-ccm.ts --cloud-provider=fakebench --kubeconfig=... [CCM flags]
 *
 * Env: `FAKEBENCH_COUNTERS_FILE` (where the fake writes its counters as one JSON line, every
 * `FAKEBENCH_COUNTERS_INTERVAL_MS` (default 1000) and at exit), `FAKEBENCH_STATE_FILE` (the cloud's
 * state, loaded at start and saved at exit), and the fake's own variables (see bench/fakebench.ts).
 * SIGUSR2 starts the fake's API quota when `FAKEBENCH_RPS_FROM=signal` (the harness sends it, W9).
 */
import { enableCompileCache } from 'node:module';

// As the examples' binaries: Node's on-disk compile cache for every module loaded after this line (static
// imports would be compiled before it runs). Not in the bundle, which runs as the scaffolded image runs its main:
// with NODE_COMPILE_CACHE, filled by the bundle's fill-compile-cache.mjs (decision 0417).
if (import.meta.url.endsWith('.ts')) enableCompileCache();
const { runCloudControllerManager } = await import('@ccm-kit/app');
const { registerCloudProvider } = await import('@ccm-kit/cloud-provider');
const { FakeBench, PROVIDER_NAME } = await import('./fakebench.ts');

const fake = FakeBench.fromEnv();
registerCloudProvider(PROVIDER_NAME, () => fake);
process.on('SIGUSR2', () => fake.startQuota());

const countersFile = process.env.FAKEBENCH_COUNTERS_FILE;
if (countersFile) {
  const write = () => {
    try {
      fake.writeCounters(countersFile);
    } catch (err) {
      process.stderr.write(`fakebench: cannot write the counters to ${countersFile}: ${(err as Error).message}\n`);
    }
  };
  write();
  setInterval(write, Number(process.env.FAKEBENCH_COUNTERS_INTERVAL_MS || 1_000)).unref();
  process.on('exit', write);
}
const stateFile = process.env.FAKEBENCH_STATE_FILE;
if (stateFile) process.on('exit', () => fake.saveState(stateFile));

await runCloudControllerManager();
