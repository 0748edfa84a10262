/**
 * What a workload driver gets for one run: the control plane (admin client, the CCM's user, the audit
 * log), the CCM process (spawned with the shared flags plus the workload's), the fakebench counters, and
 * helpers to create the benchmark's objects in parallel and to wait for convergence.
 */
import { readFile } from 'node:fs/promises';
import type { ControlPlane, ControlPlaneUser } from '@ccm-kit/testing';
import type { CoreV1Api, V1Node, V1Service } from '@kubernetes/client-node';
import type { CounterLine } from '../fakebench.ts';
import { MemoryCgroup } from './cgroup.ts';
import { BENCH_NAMESPACE, makeService } from './objects.ts';
import { ConvergenceObserver } from './observer.ts';
import { ProcessUnderTest } from './process.ts';
import type { RunSpec } from './run.ts';

/** Parallel creates the harness makes (W1's Node burst and every set-up). */
export const CREATE_CONCURRENCY = 16;

/** Runs `fn` over `items` with at most `concurrency` at a time. */
export async function pool<T>(items: readonly T[], concurrency: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Harness {
  /** The CCM currently running (the last one spawned). */
  ccm: ProcessUnderTest | undefined;
  /** The memory cgroup of the current CCM (with {@link RunSpec.memLimitMiB}). */
  cgroup: MemoryCgroup | undefined;
  /** Every memory cgroup created in the run, removed at its end. */
  readonly cgroups: MemoryCgroup[] = [];
  /** Observers to stop at the end of the run. */
  readonly observers: { stop(): void }[] = [];
  /** Rejects when the current CCM exits before it is stopped (race it against every wait). */
  exitedEarly: Promise<never> = new Promise(() => {});

  readonly spec: RunSpec;
  readonly cp: ControlPlane;
  readonly core: CoreV1Api;
  readonly user: ControlPlaneUser;
  readonly files: { countersFile: string; stateFile: string; ccmLog: string; auditLog: string };
  /** The CCM's command line after the executable (prefix, shared and workload flags, extra). */
  readonly ccmArgs: string[];
  /** Environment for the CCM besides process.env. */
  readonly ccmEnv: Record<string, string>;

  constructor(init: Pick<Harness, 'spec' | 'cp' | 'core' | 'user' | 'files' | 'ccmArgs' | 'ccmEnv'>) {
    this.spec = init.spec;
    this.cp = init.cp;
    this.core = init.core;
    this.user = init.user;
    this.files = init.files;
    this.ccmArgs = init.ccmArgs;
    this.ccmEnv = init.ccmEnv;
  }

  /**
   * Spawns the CCM (pinned to core 1; in a memory cgroup of its own with {@link RunSpec.memLimitMiB}) and arms
   * {@link Harness.exitedEarly}.
   */
  spawnCcm(): ProcessUnderTest {
    const limit = this.spec.memLimitMiB;
    this.cgroup =
      limit > 0
        ? new MemoryCgroup(`ccm-kit-bench-${process.pid}-${this.cgroups.length}-${Date.now()}`, limit)
        : undefined;
    if (this.cgroup) this.cgroups.push(this.cgroup);
    const cgroup = this.cgroup;
    const ccm = new ProcessUnderTest(this.spec.impl.command, this.ccmArgs, {
      cpu: 1,
      logPath: this.files.ccmLog,
      env: { ...process.env, ...this.ccmEnv },
      ...(cgroup ? { wrap: (cmd: string, args: readonly string[]) => cgroup.wrap(cmd, args) } : {}),
    });
    this.ccm = ccm;
    this.exitedEarly = ccm.exited.then((code) => {
      const oom = cgroup && cgroup.stats().oomKills > 0 ? `, OOM-killed under its ${limit} MiB memory limit` : '';
      throw new Error(
        `the CCM exited early with code ${code}${ccm.exitSignal ? ` (${ccm.exitSignal})` : ''}${oom} (log: ${this.files.ccmLog})`,
      );
    });
    this.exitedEarly.catch(() => {});
    return ccm;
  }

  /** Stops the current CCM with SIGTERM (it saves the cloud state); throws if it did not exit 0. */
  async stopCcm(): Promise<void> {
    const ccm = this.ccm!;
    this.exitedEarly = new Promise(() => {});
    const code = await ccm.stop();
    if (code !== 0) throw new Error(`the CCM exited with code ${code} after SIGTERM (log: ${this.files.ccmLog})`);
  }

  /** The fakebench counters line, or undefined before the CCM wrote one. */
  async counters(): Promise<CounterLine | undefined> {
    try {
      return JSON.parse(await readFile(this.files.countersFile, 'utf8')) as CounterLine;
    } catch {
      return undefined;
    }
  }

  /**
   * Polls the counters (every 50 ms) until `done` holds.
   * @throws Error naming `what` after `timeoutMs`, or when the CCM exits.
   */
  async waitCounters(
    what: string,
    done: (c: CounterLine) => boolean,
    timeoutMs = this.spec.timeoutMs,
  ): Promise<CounterLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const c = await this.counters();
      if (c && c.pid === this.ccm?.child.pid && done(c)) return c;
      if (this.ccm && !this.ccm.running) await this.exitedEarly;
      if (Date.now() > deadline)
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (counters: ${JSON.stringify(c)})`);
      await sleep(50);
    }
  }

  /** An observer of a collection (started), stopped with the run. */
  async observe<T extends V1Node | V1Service>(
    path: string,
    predicate: (obj: T, type: string) => boolean,
    expected: Iterable<string>,
  ): Promise<ConvergenceObserver<T>> {
    const o = new ConvergenceObserver<T>(this.cp.kubeConfig, path, predicate);
    this.observers.push(o);
    o.expect(expected);
    await o.start();
    return o;
  }

  /** Waits for an observer, failing early when the CCM exits. */
  async waitAll(o: ConvergenceObserver<V1Node> | ConvergenceObserver<V1Service>): Promise<void> {
    await Promise.race([o.waitAll(this.spec.timeoutMs), this.exitedEarly]);
  }

  /** Creates Nodes, {@link CREATE_CONCURRENCY} at a time. */
  async createNodes(nodes: readonly V1Node[]): Promise<void> {
    await pool(nodes, CREATE_CONCURRENCY, async (body) => {
      await this.core.createNode({ body });
    });
  }

  /** Creates the benchmark namespace. */
  async createNamespace(): Promise<void> {
    await this.core.createNamespace({ body: { metadata: { name: BENCH_NAMESPACE } } });
  }

  /**
   * Creates LoadBalancer Services `0..count-1` (in the namespace; `make` builds each, default `makeService`);
   * returns the Unix ms of each create.
   */
  async createServices(
    count: number,
    concurrency = CREATE_CONCURRENCY,
    make: (i: number) => V1Service = makeService,
  ): Promise<Map<string, number>> {
    const createdAt = new Map<string, number>();
    await pool(
      Array.from({ length: count }, (_, i) => i),
      concurrency,
      async (i) => {
        const body = make(i);
        await this.core.createNamespacedService({ namespace: BENCH_NAMESPACE, body });
        createdAt.set(body.metadata!.name!, Date.now());
      },
    );
    return createdAt;
  }
}
