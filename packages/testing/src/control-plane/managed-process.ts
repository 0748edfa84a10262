/**
 * A control-plane child process (etcd or kube-apiserver), handled as envtest does
 * (`pkg/internal/testing/process/process.go`, `procattr_unix.go`): it runs in its own process group
 * (spawned detached), is stopped with SIGTERM to the whole group and SIGKILL after a timeout, and its
 * output is either shown (attach) or kept in a ring buffer for error messages.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { OutputRingBuffer } from './ring-buffer.js';

/** How to run the process. */
export interface ProcessSpec {
  /** Short name used in messages (`etcd`, `kube-apiserver`). */
  name: string;
  /** Absolute path of the binary. */
  command: string;
  args: readonly string[];
  /** Copy the child's stdout/stderr to this process's stderr (KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT). */
  attachOutput?: boolean;
  /** Bytes of output kept for error messages (default 64 KiB). */
  outputBufferBytes?: number;
}

/** How a process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/** One run of a child process. Create a new one to start it again. */
export class ManagedProcess {
  readonly spec: ProcessSpec;
  /** The most recent output of the child. */
  readonly output: OutputRingBuffer;
  readonly #child: ChildProcess;
  #exit: ProcessExit | undefined;
  /** Resolves when the child has exited and its output is drained (never rejects). */
  readonly exited: Promise<ProcessExit>;

  /**
   * Spawns the process in its own process group.
   * @throws Error when the binary cannot be spawned (e.g. it does not exist).
   */
  constructor(spec: ProcessSpec) {
    this.spec = spec;
    this.output = new OutputRingBuffer(spec.outputBufferBytes ?? 64 * 1024);
    this.#child = spawn(spec.command, [...spec.args], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const onData = (chunk: Buffer) => {
      this.output.push(chunk);
      if (spec.attachOutput) process.stderr.write(chunk);
    };
    this.#child.stdout?.on('data', onData);
    this.#child.stderr?.on('data', onData);
    this.exited = new Promise((resolve) => {
      this.#child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
      });
      // 'close' comes after 'exit' once stdout/stderr are drained, so the output is complete.
      this.#child.once('close', (code, signal) => {
        this.#exit ??= { code, signal };
        resolve(this.#exit);
      });
      this.#child.once('error', (err) => {
        this.output.push(`${spec.name}: ${err.message}\n`);
        this.#exit ??= { code: null, signal: null };
        resolve(this.#exit);
      });
    });
    if (this.#child.pid === undefined) {
      // spawn failed synchronously-detectably (ENOENT is reported through 'error').
      this.#exit = { code: null, signal: null };
    }
  }

  /** The child's pid, also its process group id; undefined when spawning failed. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** How the process ended, or undefined while it runs. */
  get exit(): ProcessExit | undefined {
    return this.#exit;
  }

  /** True while the process has not exited. */
  get running(): boolean {
    return this.#exit === undefined && this.#child.pid !== undefined;
  }

  /**
   * Stops the process group: SIGTERM, then SIGKILL when it has not exited after `timeoutMs`
   * (`timeoutMs <= 0`: SIGKILL at once). Idempotent. Resolves once the leader has exited.
   */
  async stop(timeoutMs: number): Promise<ProcessExit> {
    const pid = this.#child.pid;
    if (pid === undefined) return this.exited;
    if (this.running && timeoutMs <= 0) {
      killGroup(pid, 'SIGKILL');
    } else if (this.running) {
      killGroup(pid, 'SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      const r = await Promise.race([this.exited, timedOut]);
      clearTimeout(timer);
      if (r === 'timeout') killGroup(pid, 'SIGKILL');
    }
    const exit = await this.exited;
    // Children of the leader (if any) share the group: make sure none outlives it.
    killGroup(pid, 'SIGKILL');
    return exit;
  }

  /** Sends SIGKILL to the process group at once (synchronous; for process 'exit' hooks). */
  killNow(): void {
    const pid = this.#child.pid;
    if (pid !== undefined) killGroup(pid, 'SIGKILL');
  }

  /** A text describing how it ended plus its last output, for error messages. */
  describe(): string {
    const how = this.#exit
      ? `exited (code ${this.#exit.code ?? '-'}, signal ${this.#exit.signal ?? '-'})`
      : `running (pid ${this.pid})`;
    const out = this.output.toString().trimEnd();
    return `${this.spec.name} ${how}.${out ? ` Last output:\n${out}` : ' No output.'}`;
  }
}
