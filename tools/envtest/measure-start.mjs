#!/usr/bin/env node
// Measures how long startControlPlane() takes (certificates, etcd, kube-apiserver /healthz, namespace
// "default") over N sequential starts, and how long stop() takes. Prints every run and the median.
//
// Usage (from the repository root, after `npx tsc -b`):
//   npx node tools/envtest/measure-start.mjs [runs=10]
// Binaries are found as in the tests (TEST_ASSET_*, KUBEBUILDER_ASSETS, setup-envtest store, tools/envtest cache).
import { performance } from 'node:perf_hooks';

const { startControlPlane } = await import(new URL('../../packages/testing/dist/index.js', import.meta.url).href);

const runs = Number(process.argv[2] ?? 10);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`runs must be a positive integer, got ${process.argv[2]}`);
  process.exit(2);
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
const median = (sorted) =>
  sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;

const starts = [];
const stops = [];
for (let i = 1; i <= runs; i++) {
  const t0 = performance.now();
  const cp = await startControlPlane();
  const t1 = performance.now();
  await cp.stop();
  const t2 = performance.now();
  starts.push(t1 - t0);
  stops.push(t2 - t1);
  console.log(`run ${String(i).padStart(2)}: start ${(t1 - t0).toFixed(0)} ms, stop ${(t2 - t1).toFixed(0)} ms`);
}
const s = [...starts].sort((a, b) => a - b);
const p = [...stops].sort((a, b) => a - b);
console.log(
  `start: median ${median(s).toFixed(0)} ms, min ${s[0].toFixed(0)} ms, p90 ${quantile(s, 0.9).toFixed(0)} ms, max ${s.at(-1).toFixed(0)} ms (${runs} runs)`,
);
console.log(`stop:  median ${median(p).toFixed(0)} ms, max ${p.at(-1).toFixed(0)} ms`);
