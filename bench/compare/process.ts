/**
 * The CCM process under test: spawned (pinned with `taskset -c <cpu>` when util-linux's taskset exists,
 * optionally inside a memory cgroup, compare/cgroup.ts), its CPU time (utime + stime from /proc/<pid>/stat) and memory (VmRSS sampled, VmHWM) read from /proc,
 * stopped with SIGTERM (SIGKILL after a grace period).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';

let clkTck: number | undefined;
/** Clock ticks per second (`getconf CLK_TCK`, default 100). */
function ticksPerSecond(): number {
  if (clkTck === undefined) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clkTck = 100;
    }
  }
  return clkTck;
}

let tasksetPath: string | null | undefined;
/** The taskset binary, or null when it is not installed. */
export function taskset(): string | null {
  if (tasksetPath === undefined) {
    try {
      tasksetPath = execFileSync('sh', ['-c', 'command -v taskset'], { encoding: 'utf8' }).trim() || null;
    } catch {
      tasksetPath = null;
    }
  }
  return tasksetPath;
}

/** Pins every thread of this process (and so its future children) to `cpu`; false without taskset. */
export function pinSelf(cpu: number): boolean {
  const ts = taskset();
  if (!ts) return false;
  execFileSync(ts, ['-a', '-p', '-c', String(cpu), String(process.pid)], { stdio: 'ignore' });
  return true;
}

/** CPU seconds (user + system) of a live process. */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start at field 3 (state).
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  return (utime + stime) / ticksPerSecond();
}

/** VmRSS and VmHWM of a live process, in bytes. */
export async function memory(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** A spawned process under test. */
export class ProcessUnderTest {
  readonly child: ChildProcess;
  readonly startedAtMs: number;
  readonly exited: Promise<number | null>;
  /** The signal that ended the process (`SIGKILL` from the OOM killer, say), once it exited. */
  exitSignal: NodeJS.Signals | null = null;
  #peakRss = 0;
  #sampler: NodeJS.Timeout;

  /**
   * @param cpu core to pin to (ignored without taskset)
   * @param logPath stdout and stderr go here
   * @param wrap turns the command line into the one to spawn (a memory cgroup's, `MemoryCgroup.wrap` of compare/cgroup.ts);
   *   the wrapper must exec the command, so that the spawned pid is the command's
   */
  constructor(
    command: string,
    args: readonly string[],
    opts: {
      env: NodeJS.ProcessEnv;
      cpu: number;
      logPath: string;
      wrap?: (command: string, args: readonly string[]) => [string, string[]];
    },
  ) {
    const ts = taskset();
    const pinned: [string, string[]] = ts ? [ts, ['-c', String(opts.cpu), command, ...args]] : [command, [...args]];
    const [cmd, argv] = opts.wrap ? opts.wrap(...pinned) : pinned;
    const log = createWriteStream(opts.logPath);
    this.startedAtMs = Date.now();
    this.child = spawn(cmd, argv, { env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.pipe(log, { end: false });
    this.child.stderr!.pipe(log, { end: false });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitSignal = signal;
        clearInterval(this.#sampler);
        log.end();
        resolve(code ?? (signal ? 128 : null));
      });
    });
    this.#sampler = setInterval(() => {
      if (this.child.pid === undefined || this.child.exitCode !== null) return;
      memory(this.child.pid).then(
        (m) => {
          if (m.rss > this.#peakRss) this.#peakRss = m.rss;
        },
        () => {},
      );
    }, 250);
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error('the process did not start');
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** CPU seconds, VmRSS, VmHWM and the peak of the sampled VmRSS, now. */
  async sample(): Promise<{ cpuSeconds: number; rssBytes: number; hwmBytes: number; peakRssSampledBytes: number }> {
    const [cpu, mem] = await Promise.all([cpuSeconds(this.pid), memory(this.pid)]);
    this.#peakRss = Math.max(this.#peakRss, mem.rss);
    return { cpuSeconds: cpu, rssBytes: mem.rss, hwmBytes: mem.hwm, peakRssSampledBytes: this.#peakRss };
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  async stop(graceMs = 15_000): Promise<number | null> {
    if (this.running) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
