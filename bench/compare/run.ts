/**
 * One benchmark run: a fresh control plane (audit log on), the workload's driver (objects, CCM process
 * pinned to core 1, convergence observed by the harness), then the figures common to every workload:
 * wall time, per-object latency, start-up, CPU seconds, memory, cloud calls (fakebench counters), API
 * requests (audit log) and the final state for the parity check.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setVerbosity } from '@ccm-kit/runtime';
import { createClientFactory } from '@ccm-kit/runtime/client';
import { startControlPlane } from '@ccm-kit/testing';
import { CoreV1Api } from '@kubernetes/client-node';
import { type ApiTraffic, emptyTraffic, readApiTraffic, waitForQuiet, writeAuditPolicy } from './audit.ts';
import { Harness } from './harness.ts';
import { serviceNodePortRange } from './node-port-range.ts';
import { dumpState, type StateDump } from './parity.ts';
import { quantile } from './stats.ts';
import { workloadById, type WorkloadId } from './workloads/index.ts';

export type ImplId = 'ts' | 'go' | 'go-json' | 'go-at-c';

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
  /** Environment variables of the CCM process (for ccm-kit: the scaffolded image's `NODE_OPTIONS`). */
  env?: Record<string, string>;
}

export interface RunSpec {
  workload: WorkloadId;
  nodes: number;
  /** LoadBalancer Services (W2, W3, W6–W8), else 0. */
  services: number;
  /** W3: Nodes joining (one at a time, then as many in a burst); W4: stale routes; W5: gone and shut-down Nodes, each. */
  k: number;
  /** W6: the idle window, minutes. */
  minutes: number;
  concurrency: number;
  qps: number;
  burst: number;
  /** fakebench latency per cloud call, ms. */
  latencyMs: number;
  /** The `b` config suffix: ccm-kit's fakebench offers the batch read (Go runs unchanged). Default false. */
  batch?: boolean;
  /** Each CCM process in a memory cgroup with this limit, MiB (compare/cgroup.ts); 0: none. */
  memLimitMiB: number;
  /** W9: LoadBalancer Services created while the Nodes join, else 0. */
  newServices: number;
  /** W9: the cloud's API quota, calls a second (fakebench `FAKEBENCH_RPS`), else 0. */
  cloudRps: number;
  /** W10: load-balancer groups the Services are spread over (fakebench's group label), else 0. */
  groups: number;
  impl: Impl;
  /** Give up after this long (ms) waiting for convergence. */
  timeoutMs: number;
  /** Where the CCM log of a failed run is kept. */
  keepLogsDir: string;
}

export interface RunResult {
  workload: WorkloadId;
  nodes: number;
  services: number;
  k: number;
  minutes: number;
  concurrency: number;
  qps: number;
  burst: number;
  latencyMs: number;
  memLimitMiB: number;
  newServices: number;
  cloudRps: number;
  groups: number;
  impl: ImplId;
  ok: boolean;
  error?: string;
  /** Seconds of the workload's measured interval (W1: from CCM spawn; W2: from the first Service create; …). */
  wallS: number;
  /** Per-object latency quantiles, seconds (NaN when the workload has none). */
  p50S: number;
  p90S: number;
  /** CCM spawn → its first cloud call (the first reconcile), seconds. */
  startupS: number;
  /** CPU seconds (utime + stime) of the CCM from spawn until it is at rest after convergence. */
  cpuS: number;
  /** CPU seconds spent in the workload's own phase (W2: readiness → rest), else NaN. */
  cpuWorkloadS: number;
  /** VmHWM at rest after convergence, MiB. */
  hwmMiB: number;
  /** VmRSS at rest after convergence, MiB. */
  rssMiB: number;
  /** Peak of VmRSS sampled every 250 ms, MiB. */
  peakRssMiB: number;
  /** With a memory limit: whether the kernel's OOM killer killed a CCM process of the run. */
  oomKilled: boolean;
  /** With a memory limit: the peak the cgroup charged (process memory and page cache), MiB; else NaN. */
  cgroupMaxUsageMiB: number;
  /** With a memory limit: how often the usage hit the limit (memory.failcnt); else NaN. */
  cgroupFailcnt: number;
  /** Seconds from convergence until the CCM's API traffic went quiet (2 s without a request). */
  settleS: number;
  /** fakebench counters after the CCM exited. */
  calls: Record<string, number>;
  lbHostsTotal: number;
  api: ApiTraffic;
  /** Workload figures (the workload's report columns); `batch: true` on a ccm-kit run with the batch read. */
  extra: Record<string, number | boolean>;
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

/** Instances per `ListInstanceStates` page of ccm-kit's fakebench with the `b` suffix. */
export const BATCH_PAGE_SIZE = 500;

/** fakebench's batch-read environment: only ccm-kit's side offers it (the Go contract has no batch read). */
function batchEnv(spec: RunSpec): Record<string, string> {
  if (!spec.batch || spec.impl.id !== 'ts') return {};
  return { FAKEBENCH_BATCH_PAGE_SIZE: String(BATCH_PAGE_SIZE), FAKEBENCH_INSTANCES: String(spec.nodes) };
}

/** The flags both CCMs get: the shared ones, then the workload's. */
export function sharedFlags(spec: RunSpec, kubeconfig: string): string[] {
  const w = workloadById(spec.workload);
  return [
    '--cloud-provider=fakebench',
    `--kubeconfig=${kubeconfig}`,
    '--leader-elect=false',
    '--secure-port=0',
    `--controllers=${w.controllers}`,
    `--kube-api-qps=${spec.qps}`,
    `--kube-api-burst=${spec.burst}`,
    `--concurrent-node-syncs=${spec.concurrency}`,
    `--concurrent-service-syncs=${spec.concurrency}`,
    ...(w.flags?.(spec) ?? []),
  ];
}

function emptyResult(spec: RunSpec): RunResult {
  const {
    workload,
    nodes,
    services,
    k,
    minutes,
    concurrency,
    qps,
    burst,
    latencyMs,
    memLimitMiB,
    newServices,
    cloudRps,
    groups,
  } = spec;
  return {
    workload,
    nodes,
    services,
    k,
    minutes,
    concurrency,
    qps,
    burst,
    latencyMs,
    memLimitMiB,
    newServices,
    cloudRps,
    groups,
    impl: spec.impl.id,
    ok: false,
    wallS: NaN,
    p50S: NaN,
    p90S: NaN,
    startupS: NaN,
    cpuS: NaN,
    cpuWorkloadS: NaN,
    hwmMiB: NaN,
    rssMiB: NaN,
    peakRssMiB: NaN,
    oomKilled: false,
    cgroupMaxUsageMiB: NaN,
    cgroupFailcnt: NaN,
    settleS: NaN,
    calls: {},
    lbHostsTotal: 0,
    api: emptyTraffic(),
    extra: {},
    loadStart: loadavg()[0]!,
    loadEnd: NaN,
    problems: [],
  };
}

/** Runs one (workload, sizes, implementation) and returns its figures; never throws for a failed run. */
export async function runOnce(spec: RunSpec): Promise<RunResult> {
  const result = emptyResult(spec);
  const workload = workloadById(spec.workload);
  setVerbosity(0);
  const root = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const dir = await mkdtemp(join(root, 'ccm-kit-bench-'));
  const files = {
    auditLog: join(dir, 'audit.log'),
    countersFile: join(dir, 'counters.json'),
    stateFile: join(dir, 'cloud-state.json'),
    ccmLog: join(dir, 'ccm.log'),
  };
  await writeAuditPolicy(join(dir, 'audit-policy.yaml'));
  const cp = await startControlPlane({
    tmpDir: dir,
    apiServerFlags: {
      'audit-policy-file': join(dir, 'audit-policy.yaml'),
      'audit-log-path': files.auditLog,
      'audit-log-format': 'json',
      // Room for W8's 1,000 Services (the default /24 holds 254); outside the Nodes' 10.64.0.0/10 podCIDRs.
      'service-cluster-ip-range': '10.0.0.0/16',
      'service-node-port-range': serviceNodePortRange(spec.services + spec.newServices),
    },
  });
  const username = `ccm-${spec.impl.id}`;
  const clients = createClientFactory({ kubeConfig: cp.kubeConfig, qps: -1, userAgent: 'ccm-kit-bench-harness' });
  const core = clients.client('harness', CoreV1Api);
  let h: Harness | undefined;
  try {
    const user = await cp.addUser(username, ['system:masters']);
    h = new Harness({
      spec,
      cp,
      core,
      user,
      files,
      ccmArgs: [...spec.impl.prefixArgs, ...sharedFlags(spec, user.kubeconfigPath), ...spec.impl.extraArgs],
      ccmEnv: {
        FAKEBENCH_COUNTERS_FILE: files.countersFile,
        FAKEBENCH_STATE_FILE: files.stateFile,
        FAKEBENCH_LATENCY_MS: String(spec.latencyMs),
        ...spec.impl.env,
        ...workload.env?.(spec),
        ...batchEnv(spec),
      },
    });
    const m = await workload.drive(h);
    const ccm = h.ccm!;
    result.wallS = (m.endMs - m.startMs) / 1000;
    result.p50S = quantile(m.latenciesMs, 0.5) / 1000;
    result.p90S = quantile(m.latenciesMs, 0.9) / 1000;

    // Let trailing work (events, status patches) finish, so both sides are measured at rest.
    result.settleS = (await waitForQuiet(files.auditLog, username, QUIET_MS, MAX_SETTLE_MS)) / 1000;
    const at = await ccm.sample();
    result.cpuS = at.cpuSeconds;
    if (m.cpuPhaseStartS !== undefined) result.cpuWorkloadS = at.cpuSeconds - m.cpuPhaseStartS;
    result.hwmMiB = at.hwmBytes / 2 ** 20;
    result.rssMiB = at.rssBytes / 2 ** 20;
    result.peakRssMiB = at.peakRssSampledBytes / 2 ** 20;
    const stopAt = Date.now();
    const code = await ccm.stop();
    if (code !== 0) result.problems.push(`the CCM exited with code ${code} after SIGTERM`);
    const counters = await h.counters();
    for (const o of h.observers) o.stop();
    const { dump, problems } = await dumpState(cp.kubeConfig);
    result.state = dump;
    result.problems.push(...problems);
    result.extra = { ...m.extra, ...(batchEnv(spec).FAKEBENCH_BATCH_PAGE_SIZE ? { batch: true } : {}) };
    if (counters) {
      result.calls = counters.calls;
      result.lbHostsTotal = counters.lbHostsTotal;
      result.startupS = counters.firstCallMs > 0 ? (counters.firstCallMs - ccm.startedAtMs) / 1000 : NaN;
      Object.assign(result.extra, m.finalize?.(counters));
      result.problems.push(...(workload.verify?.(spec, counters) ?? []));
      dump['cloud/fakebench'] = {
        loadBalancers: String(counters.loadBalancers),
        lbHostsTotal: String(counters.lbHostsTotal),
        lbHostsHash: String(counters.lbHostsHash),
        routes: String(counters.routes),
        routesHash: String(counters.routesHash),
        ...m.parity,
      };
    } else {
      result.problems.push('no counters file');
    }
    // Requests made while shutting down (after SIGTERM) are not counted.
    result.api = await readApiTraffic(files.auditLog, username, stopAt, m.apiFromMs ?? 0);
    result.ok = true;
  } catch (err) {
    result.error = (err as Error).message;
    const kept = join(
      spec.keepLogsDir,
      `failed-${spec.workload}-${spec.nodes}-${spec.services}-${spec.k}-c${spec.concurrency}-${spec.impl.id}-${Date.now()}.log`,
    );
    await copyFile(files.ccmLog, kept).catch(() => {});
    result.problems.push(`CCM log kept at ${kept}`);
  } finally {
    for (const o of h?.observers ?? []) o.stop();
    await h?.ccm?.stop(5_000);
    for (const cg of h?.cgroups ?? []) {
      try {
        const s = cg.stats();
        result.oomKilled ||= s.oomKills > 0;
        if (cg === h?.cgroup) {
          result.cgroupMaxUsageMiB = s.maxUsageBytes / 2 ** 20;
          result.cgroupFailcnt = s.failcnt;
        }
      } catch (err) {
        result.problems.push(`cannot read the memory cgroup ${cg.path}: ${(err as Error).message}`);
      }
      cg.remove();
    }
    await clients.close();
    await cp.stop();
    await rm(dir, { recursive: true, force: true });
    result.loadEnd = loadavg()[0]!;
  }
  return result;
}
