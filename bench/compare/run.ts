/**
 * One benchmark run: a fresh control plane (audit log on), the workload's objects, one CCM process
 * (pinned to core 1), convergence observed by the harness, then the figures: wall time, per-object
 * latency, start-up, CPU seconds, peak RSS, cloud calls (fakebench counters) and API requests (audit log),
 * and the final state for the parity check.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClientFactory, setVerbosity } from '@ccm-kit/runtime';
import { startControlPlane } from '@ccm-kit/testing';
import { CoreV1Api, type V1Node, type V1Service } from '@kubernetes/client-node';
import type { CounterLine } from '../fakebench.ts';
import { type ApiTraffic, readApiTraffic, waitForQuiet, writeAuditPolicy } from './audit.ts';
import {
  BENCH_NAMESPACE,
  makeNode,
  makeService,
  nodeConverged,
  nodeName,
  serviceConverged,
  serviceName,
} from './objects.ts';
import { ConvergenceObserver } from './observer.ts';
import { dumpState, type StateDump } from './parity.ts';
import { ProcessUnderTest } from './process.ts';
import { quantile } from './stats.ts';

export type ImplId = 'ts' | 'go' | 'go-json';

/** How to start one implementation. */
export interface Impl {
  id: ImplId;
  /** Shown in the tables. */
  label: string;
  command: string;
  /** Arguments before the shared CCM flags. */
  prefixArgs: string[];
  /** Arguments after the shared CCM flags. */
  extraArgs: string[];
}

export interface RunSpec {
  workload: 'W1' | 'W2';
  nodes: number;
  /** LoadBalancer Services (W2), 0 for W1. */
  services: number;
  concurrency: number;
  qps: number;
  burst: number;
  /** fakebench latency per cloud call, ms. */
  latencyMs: number;
  impl: Impl;
  /** Give up after this long (ms) waiting for convergence. */
  timeoutMs: number;
  /** Where the CCM log of a failed run is kept. */
  keepLogsDir: string;
}

export interface RunResult {
  workload: RunSpec['workload'];
  nodes: number;
  services: number;
  concurrency: number;
  impl: ImplId;
  ok: boolean;
  error?: string;
  /** Seconds to converge: W1 from CCM spawn; W2 from the first Service create. */
  wallS: number;
  /** Per-object latency (W1: spawn → Node converged; W2: Service created → ingress), seconds. */
  p50S: number;
  p90S: number;
  /** CCM spawn → its first cloud call (the first reconcile), seconds. */
  startupS: number;
  /** CPU seconds (utime + stime) of the CCM from spawn until it is at rest after convergence. */
  cpuS: number;
  /** W2: CPU seconds spent between readiness and convergence (the Services' share). */
  cpuWorkloadS: number;
  /** VmHWM at rest after convergence, MiB. */
  hwmMiB: number;
  /** Peak of VmRSS sampled every 250 ms, MiB. */
  peakRssMiB: number;
  /** Seconds from convergence until the CCM's API traffic went quiet (2 s without a request). */
  settleS: number;
  /** fakebench counters after the CCM exited. */
  calls: Record<string, number>;
  lbHostsTotal: number;
  api: ApiTraffic;
  /** 1-minute load average at the start and at the end of the run. */
  loadStart: number;
  loadEnd: number;
  state?: StateDump;
  problems: string[];
}

/** After convergence, wait until the CCM has made no API request for this long (ms) ... */
const QUIET_MS = 2_000;
/** ... but no longer than this (ms). */
const MAX_SETTLE_MS = 60_000;

async function pool<T>(items: readonly T[], concurrency: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

async function readCounters(path: string): Promise<CounterLine | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as CounterLine;
  } catch {
    return undefined;
  }
}

/** The flags both CCMs get. */
export function sharedFlags(spec: RunSpec, kubeconfig: string): string[] {
  return [
    '--cloud-provider=fakebench',
    `--kubeconfig=${kubeconfig}`,
    '--leader-elect=false',
    '--secure-port=0',
    '--controllers=cloud-node-controller,service-lb-controller',
    `--kube-api-qps=${spec.qps}`,
    `--kube-api-burst=${spec.burst}`,
    `--concurrent-node-syncs=${spec.concurrency}`,
    `--concurrent-service-syncs=${spec.concurrency}`,
  ];
}

function emptyResult(spec: RunSpec): RunResult {
  return {
    workload: spec.workload,
    nodes: spec.nodes,
    services: spec.services,
    concurrency: spec.concurrency,
    impl: spec.impl.id,
    ok: false,
    wallS: NaN,
    p50S: NaN,
    p90S: NaN,
    startupS: NaN,
    cpuS: NaN,
    cpuWorkloadS: NaN,
    hwmMiB: NaN,
    peakRssMiB: NaN,
    settleS: NaN,
    calls: {},
    lbHostsTotal: 0,
    api: { total: 0, writes: 0, byVerbResource: {}, byCode: {}, conflicts: 0, otherErrors: 0 },
    loadStart: loadavg()[0]!,
    loadEnd: NaN,
    problems: [],
  };
}

/** Runs one (workload, size, concurrency, implementation) and returns its figures; never throws for a failed run. */
export async function runOnce(spec: RunSpec): Promise<RunResult> {
  const result = emptyResult(spec);
  setVerbosity(0);
  const root = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const dir = await mkdtemp(join(root, 'ccm-kit-bench-'));
  const auditLog = join(dir, 'audit.log');
  const countersFile = join(dir, 'counters.json');
  const ccmLog = join(dir, 'ccm.log');
  await writeAuditPolicy(join(dir, 'audit-policy.yaml'));
  const cp = await startControlPlane({
    tmpDir: dir,
    apiServerFlags: {
      'audit-policy-file': join(dir, 'audit-policy.yaml'),
      'audit-log-path': auditLog,
      'audit-log-format': 'json',
    },
  });
  const username = `ccm-${spec.impl.id}`;
  const clients = createClientFactory({ kubeConfig: cp.kubeConfig, qps: -1, userAgent: 'ccm-kit-bench-harness' });
  const core = clients.client('harness', CoreV1Api);
  let ccm: ProcessUnderTest | undefined;
  const observers: ConvergenceObserver<V1Node | V1Service>[] = [];
  try {
    const user = await cp.addUser(username, ['system:masters']);
    const initialized = spec.workload === 'W2';
    const indices = Array.from({ length: spec.nodes }, (_, i) => i);
    await pool(indices, 16, async (i) => {
      await core.createNode({ body: makeNode(i, initialized) });
    });
    if (spec.workload === 'W2') await core.createNamespace({ body: { metadata: { name: BENCH_NAMESPACE } } });

    const nodesObs = new ConvergenceObserver<V1Node>(cp.kubeConfig, '/api/v1/nodes', nodeConverged);
    observers.push(nodesObs as ConvergenceObserver<V1Node | V1Service>);
    if (spec.workload === 'W1') {
      nodesObs.expect(indices.map(nodeName));
      await nodesObs.start();
    }

    ccm = new ProcessUnderTest(spec.impl.command, [...spec.impl.prefixArgs, ...sharedFlags(spec, user.kubeconfigPath), ...spec.impl.extraArgs], {
      cpu: 1,
      logPath: ccmLog,
      env: {
        ...process.env,
        FAKEBENCH_COUNTERS_FILE: countersFile,
        FAKEBENCH_LATENCY_MS: String(spec.latencyMs),
      },
    });
    const spawnedAt = ccm.startedAtMs;
    const exitedEarly = ccm.exited.then((code) => {
      throw new Error(`the CCM exited early with code ${code} (log: ${ccmLog})`);
    });
    exitedEarly.catch(() => {});

    let latencies: number[];
    let startMs: number;
    let endMs: number;
    if (spec.workload === 'W1') {
      await Promise.race([nodesObs.waitAll(spec.timeoutMs), exitedEarly]);
      startMs = spawnedAt;
      latencies = indices.map((i) => nodesObs.convergedAt.get(nodeName(i))! - spawnedAt);
      endMs = Math.max(...indices.map((i) => nodesObs.convergedAt.get(nodeName(i))!));
    } else {
      // Ready: the status pass over the (initialized) Nodes ran, so the Node cache has synced.
      const readyDeadline = Date.now() + spec.timeoutMs;
      for (;;) {
        const c = await readCounters(countersFile);
        if (c && (c.calls.InstanceMetadata ?? 0) >= spec.nodes) break;
        if (!ccm.running) await exitedEarly;
        if (Date.now() > readyDeadline) throw new Error('timed out waiting for the status pass over the Nodes');
        await new Promise((r) => setTimeout(r, 100));
      }
      const ready = await ccm.sample();
      result.cpuWorkloadS = -ready.cpuSeconds;
      const svcObs = new ConvergenceObserver<V1Service>(
        cp.kubeConfig,
        `/api/v1/namespaces/${BENCH_NAMESPACE}/services`,
        serviceConverged,
      );
      observers.push(svcObs as ConvergenceObserver<V1Node | V1Service>);
      const names = Array.from({ length: spec.services }, (_, i) => serviceName(i));
      svcObs.expect(names);
      await svcObs.start();
      const createdAt = new Map<string, number>();
      startMs = Date.now();
      await pool(
        Array.from({ length: spec.services }, (_, i) => i),
        10,
        async (i) => {
          await core.createNamespacedService({ namespace: BENCH_NAMESPACE, body: makeService(i) });
          createdAt.set(serviceName(i), Date.now());
        },
      );
      await Promise.race([svcObs.waitAll(spec.timeoutMs), exitedEarly]);
      latencies = names.map((n) => Math.max(0, svcObs.convergedAt.get(n)! - createdAt.get(n)!));
      endMs = Math.max(...names.map((n) => svcObs.convergedAt.get(n)!));
    }
    result.wallS = (endMs - startMs) / 1000;
    result.p50S = quantile(latencies, 0.5) / 1000;
    result.p90S = quantile(latencies, 0.9) / 1000;

    // Let trailing work (events, status patches) finish, so both sides are measured at rest.
    result.settleS = (await waitForQuiet(auditLog, username, QUIET_MS, MAX_SETTLE_MS)) / 1000;
    const at = await ccm.sample();
    result.cpuS = at.cpuSeconds;
    if (spec.workload === 'W2') result.cpuWorkloadS += at.cpuSeconds;
    result.hwmMiB = at.hwmBytes / 2 ** 20;
    result.peakRssMiB = at.peakRssSampledBytes / 2 ** 20;
    const stopAt = Date.now();
    const code = await ccm.stop();
    if (code !== 0) result.problems.push(`the CCM exited with code ${code} after SIGTERM`);
    const counters = await readCounters(countersFile);
    if (counters) {
      result.calls = counters.calls;
      result.lbHostsTotal = counters.lbHostsTotal;
      result.startupS = counters.firstCallMs > 0 ? (counters.firstCallMs - spawnedAt) / 1000 : NaN;
    } else {
      result.problems.push('no counters file');
    }
    for (const o of observers) o.stop();
    const { dump, problems } = await dumpState(cp.kubeConfig);
    result.state = dump;
    result.problems.push(...problems);
    if (spec.workload === 'W2' && result.lbHostsTotal !== spec.services * spec.nodes) {
      result.problems.push(`balancers hold ${result.lbHostsTotal} hosts in total, expected ${spec.services * spec.nodes}`);
    }
    // Requests made while shutting down (after SIGTERM) are not counted.
    result.api = await readApiTraffic(auditLog, username, stopAt);
    result.ok = true;
  } catch (err) {
    result.error = (err as Error).message;
    const kept = join(spec.keepLogsDir, `failed-${spec.workload}-${spec.nodes}-${spec.services}-c${spec.concurrency}-${spec.impl.id}-${Date.now()}.log`);
    await copyFile(ccmLog, kept).catch(() => {});
    result.problems.push(`CCM log kept at ${kept}`);
  } finally {
    for (const o of observers) o.stop();
    await ccm?.stop(5_000);
    await clients.close();
    await cp.stop();
    await rm(dir, { recursive: true, force: true });
    result.loadEnd = loadavg()[0]!;
  }
  return result;
}
