/**
 * The CCM processes: one per slot, examples/mockcloud's binary with leader election on and a short lease.
 * A process that exits (killed, or `leaderelection lost`) is started again in its slot after a second, as
 * Kubernetes would restart the container. Each process' lifetime and lease identity are recorded, so that a
 * cloud call or API write made by a slot at a time can be tied to the process that made it. The CCMs run mockcloud
 * with `loadBalancer.groupBy: namespace` (load-balancer groups, docs/decisions/0207): the chaos Services share one
 * namespace, so each CCM must never have two load-balancer calls in flight at once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Cluster } from './cluster.ts';
import { leaseFlags } from './profiles.ts';

const MAIN = new URL('../../examples/mockcloud/dist/main.js', import.meta.url).pathname;

/** One process that ran in a slot. */
export interface ProcessRecord {
  slot: number;
  pid: number;
  /** Epoch ms. */
  startedAt: number;
  /** Epoch ms when the process logged its lease identity (it campaigns from then on). */
  campaigningAt?: number;
  identity?: string;
  exitedAt?: number;
  exitCode?: number | null;
  signal?: NodeJS.Signals | null;
  /** Lines it has written so far (stdout and stderr). */
  lines: number;
  /** Its log file (stdout and stderr). */
  logPath: string;
}

export interface FleetOptions {
  slots: number;
  dir: string;
  kubeconfigPaths: string[];
  cloudUrl: string;
  token(slot: number): string;
  /** More flags for every CCM (for example the collector's). */
  extraArgs?: readonly string[];
}

export class Fleet {
  readonly records: ProcessRecord[] = [];
  readonly #opts: FleetOptions;
  readonly #children = new Map<number, { child: ChildProcess; record: ProcessRecord }>();
  #stopping = false;
  #starts = 0;

  readonly #cloudConfig: string;

  constructor(opts: FleetOptions) {
    this.#opts = opts;
    this.#cloudConfig = join(opts.dir, 'cloud-config.yaml');
    writeFileSync(this.#cloudConfig, 'loadBalancer:\n  groupBy: namespace\n');
  }

  startAll(): void {
    for (let i = 0; i < this.#opts.slots; i++) this.#start(i);
  }

  #start(slot: number): void {
    if (this.#stopping) return;
    const n = this.#starts++;
    const child = spawn(
      process.execPath,
      [
        MAIN,
        `--kubeconfig=${this.#opts.kubeconfigPaths[slot]}`,
        '--secure-port=0',
        '--leader-elect=true',
        `--leader-elect-lease-duration=${leaseFlags.leaseDuration}`,
        `--leader-elect-renew-deadline=${leaseFlags.renewDeadline}`,
        `--leader-elect-retry-period=${leaseFlags.retryPeriod}`,
        '--node-monitor-period=2s',
        '--configure-cloud-routes=false',
        '--concurrent-service-syncs=4',
        '--cluster-name=chaos',
        `--cloud-config=${this.#cloudConfig}`,
        ...(this.#opts.extraArgs ?? []),
      ],
      {
        env: {
          ...process.env,
          MOCKCLOUD_API_URL: this.#opts.cloudUrl,
          MOCKCLOUD_TOKEN: this.#opts.token(slot),
          MOCKCLOUD_CLUSTER_ID: 'chaos',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const logPath = join(this.#opts.dir, `ccm-${slot}-${n}.log`);
    const record: ProcessRecord = { slot, pid: child.pid ?? -1, startedAt: Date.now(), lines: 0, logPath };
    this.records.push(record);
    this.#children.set(slot, { child, record });
    const log = createWriteStream(logPath);
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.pipe(log, { end: false });
      createInterface({ input: stream }).on('line', (line) => {
        record.lines++;
        if (record.identity) return;
        const m = /attempting to acquire leader lease.*identity="([^"]+)"/.exec(line);
        if (m) {
          record.identity = m[1];
          record.campaigningAt = Date.now();
        }
      });
    }
    child.on('exit', (code, signal) => {
      record.exitedAt = Date.now();
      record.exitCode = code;
      record.signal = signal;
      log.end();
      if (this.#children.get(slot)?.child === child) this.#children.delete(slot);
      setTimeout(() => this.#start(slot), 1_000).unref();
    });
  }

  /** The running process of the slot whose identity is `identity`. */
  byIdentity(identity: string): { child: ChildProcess; record: ProcessRecord } | undefined {
    return [...this.#children.values()].find((c) => c.record.identity === identity && c.record.exitedAt === undefined);
  }

  /** The process that ran in `slot` at epoch ms `t`. */
  processAt(slot: number, t: number): ProcessRecord | undefined {
    let found: ProcessRecord | undefined;
    for (const r of this.records) {
      if (r.slot === slot && r.startedAt <= t && (r.exitedAt === undefined || t <= r.exitedAt)) found = r;
    }
    return found;
  }

  /** The record of the process with `identity`. */
  recordOf(identity: string): ProcessRecord | undefined {
    return this.records.find((r) => r.identity === identity);
  }

  /** Stops every process (SIGTERM, SIGKILL after 15 s) and starts no more. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.all(
      [...this.#children.values()].map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGCONT');
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
          }),
      ),
    );
  }
}

/** The fleet of `slots` CCMs for `cluster`, logging to `dir`. */
export function fleetFor(cluster: Cluster, slots: number, dir: string, extraArgs: readonly string[] = []): Fleet {
  return new Fleet({
    slots,
    dir,
    kubeconfigPaths: cluster.kubeconfigPaths,
    cloudUrl: cluster.cloud.url,
    token: (i) => `${cluster.slotName(i)}-token`,
    extraArgs,
  });
}
