/**
 * Start-up CPU of ccm-kit's bench CCM from its `ccm-kit build` bundle (as bench:compare runs it: the image's
 * `NODE_OPTIONS`), with and without V8's compile cache (`NODE_COMPILE_CACHE`, Node ≥ 22.1), on a 30-Node W1:
 * 30 uninitialized Nodes, the CCM started, its CPU time read once all 30 are initialized and the process has
 * been idle for 1 s: the sum over its threads of `/proc/<pid>/task/<tid>/schedstat`'s time on a CPU, in
 * nanoseconds (utime and stime count in 10 ms ticks, too coarse for a 0.3 s start). Variants, interleaved over the rounds (the order rotating), in one process:
 *
 * - `none`: no compile cache (an image without one);
 * - `build-time`: the cache the scaffolded image's build makes, the bundle's `fill-compile-cache.mjs` run once (no
 *   cluster), copied fresh before each run (an image's layer: what a run adds is not kept);
 * - `after a run`: a cache made by one full run of the same W1 (what a writable cache holds after the first
 *   start), copied fresh before each run: the most a cache can give.
 *
 * With `--node-flags='<flags>;<flags>…'` the variants are instead V8/Node flag sets on the command line (`''` is
 * the image's), each with its own build-time cache filled under the same flags (V8 rejects a cache made under
 * other flags; Node refuses most V8 flags in `NODE_OPTIONS`), the ratios to the first set.
 *
 *   npx tsc -b && node bench/compile-cache-start.ts [--rounds=5] [--nodes=30] [--node-flags='<flags>;…']
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setVerbosity } from '@ccm-kit/runtime';
import { createClientFactory } from '@ccm-kit/runtime/client';
import { startControlPlane } from '@ccm-kit/testing';
import { CoreV1Api } from '@kubernetes/client-node';
import { makeNode, nodeConverged } from './compare/objects.ts';
import { ProcessUnderTest } from './compare/process.ts';
import { median } from './compare/stats.ts';
import { fillCompileCacheInto, tsCcmBundle, vendorEnv } from './compare/ts-bundle.ts';

const arg = (name: string, def: number) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? Number(hit.split('=')[1]) : def;
};
const ROUNDS = arg('rounds', 5);
const N = arg('nodes', 30);
const flagSets = process.argv
  .find((a) => a.startsWith('--node-flags='))
  ?.slice('--node-flags='.length)
  .split(';')
  .map((f) => f.trim());
const argvOf = (flags: string) => flags.split(' ').filter(Boolean);
const repo = join(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'ccm-kit-compile-cache-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU seconds of a live process: its threads' time on a CPU (schedstat, nanoseconds). */
function cpuSeconds(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread exited between the listing and the read.
    }
  }
  return ns / 1e9;
}

const bundle = await tsCcmBundle(repo, (l) => console.error(l));
setVerbosity(0);
const cp = await startControlPlane();
try {
  const clients = createClientFactory({ kubeConfig: cp.kubeConfig, qps: -1, userAgent: 'ccm-kit-bench-start' });
  const core = clients.client('bench', CoreV1Api);
  const user = await cp.addUser('ccm-ts', ['system:masters']);
  const flags = [
    '--cloud-provider=fakebench',
    `--kubeconfig=${user.kubeconfigPath}`,
    '--leader-elect=false',
    '--secure-port=0',
    '--controllers=cloud-node-controller,service-lb-controller',
    '--kube-api-qps=1000',
    '--kube-api-burst=2000',
    '--concurrent-node-syncs=10',
    '--concurrent-service-syncs=10',
  ];

  /** One W1 of N Nodes, the CCM started with `nodeFlags`; its CPU seconds once it converged and idled for 1 s. */
  async function run(cacheDir: string | undefined, nodeFlags = ''): Promise<number> {
    const { items } = await core.listNode();
    await Promise.all(items.map((n) => core.deleteNode({ name: n.metadata!.name! })));
    await Promise.all(Array.from({ length: N }, (_, i) => core.createNode({ body: makeNode(i, false) })));
    const env = { ...process.env, ...vendorEnv(), ...(cacheDir ? { NODE_COMPILE_CACHE: cacheDir } : {}) };
    if (!cacheDir) delete env.NODE_COMPILE_CACHE;
    const ccm = new ProcessUnderTest(process.execPath, [...argvOf(nodeFlags), bundle, ...flags], {
      env,
      cpu: 1,
      logPath: join(work, 'ccm.log'),
    });
    try {
      for (let t = 0; ; t++) {
        if (!ccm.running) throw new Error(`the CCM exited early; log ${join(work, 'ccm.log')}`);
        const nodes = (await core.listNode()).items;
        if (nodes.length === N && nodes.every((n) => nodeConverged(n))) break;
        if (t > 600) throw new Error('the Nodes were not initialized within 2 minutes');
        await sleep(200);
      }
      // Idle: under 2 ms of CPU in each quarter second for 1 s (timers and the GC's threads tick on).
      let last = cpuSeconds(ccm.pid);
      for (let quiet = 0; quiet < 4;) {
        await sleep(250);
        const now = cpuSeconds(ccm.pid);
        quiet = now - last < 0.002 ? quiet + 1 : 0;
        last = now;
      }
      return last;
    } finally {
      await ccm.stop();
    }
  }

  const fresh = (from: string) => {
    const to = join(work, 'current');
    rmSync(to, { recursive: true, force: true });
    cpSync(from, to, { recursive: true });
    return to;
  };
  /** Per variant: the flags the CCM starts with, and the compile cache it gets (a fresh copy, or none). */
  const variants: Record<string, { flags: string; cache: () => string | undefined }> = {};
  if (flagSets) {
    for (const [i, flagSet] of flagSets.entries()) {
      const dir = join(work, `build-time-${i}`);
      fillCompileCacheInto(bundle, dir, argvOf(flagSet));
      variants[flagSet || "the image's"] = { flags: flagSet, cache: () => fresh(dir) };
    }
  } else {
    // The caches, made with the image's NODE_OPTIONS (V8 rejects a cache made under other flags); tsCcmBundle
    // filled the build-time one.
    const buildTime = join(work, 'build-time');
    cpSync(vendorEnv(bundle).NODE_COMPILE_CACHE!, buildTime, { recursive: true });
    const afterRun = join(work, 'after-run');
    await run(afterRun);
    variants.none = { flags: '', cache: () => undefined };
    variants['build-time'] = { flags: '', cache: () => fresh(buildTime) };
    variants['after a run'] = { flags: '', cache: () => fresh(afterRun) };
  }
  const names = Object.keys(variants);
  const cpu = new Map(names.map((v) => [v, [] as number[]]));
  const load0 = loadavg()[0]!;
  await run(undefined); // warm the page cache and the control plane, discarded
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < names.length; i++) {
      const v = names[(i + round) % names.length]!;
      const s = await run(variants[v]!.cache(), variants[v]!.flags);
      cpu.get(v)!.push(s);
      console.error(`round ${round + 1}: ${v} ${s.toFixed(3)} CPU s (load ${loadavg()[0]!.toFixed(2)})`);
    }
  }
  const load1 = loadavg()[0]!;
  await clients.close();

  console.log(
    `W1 of ${N} Nodes from the bundle, CCM CPU s until initialized and idle; ${ROUNDS} interleaved rounds; ${process.version}; load average (1 min) ${load0.toFixed(2)} → ${load1.toFixed(2)}\n`,
  );
  console.log(
    `| ${flagSets ? 'node flags' : 'compile cache'} | CPU s, median (range) | ÷ ${names[0]} (median of the rounds' ratios) |`,
  );
  console.log('|---|---|---|');
  const none = cpu.get(names[0]!)!;
  for (const [v, xs] of cpu) {
    const ratio = median(xs.map((x, i) => x / none[i]!));
    console.log(
      `| ${v} | ${median(xs).toFixed(3)} (${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}) | ${ratio.toFixed(2)} |`,
    );
  }
} finally {
  await cp.stop();
  rmSync(work, { recursive: true, force: true });
}
