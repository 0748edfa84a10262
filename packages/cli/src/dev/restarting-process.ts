/**
 * The CCM process of `ccm-kit dev`: build, start, and on every change under the watched directory build
 * again and restart (the old process gets SIGTERM and 10 s to release what it holds, then SIGKILL). After each
 * restart, once the new process runs, one line says so (`[ccm-kit dev] the CCM is running again …`), for a
 * script to wait on.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { watch } from 'node:fs';

export interface RestartingProcessOptions {
  /** Shell command that builds the entry point (`undefined`: no build step). */
  build?: string;
  /** The command to run after each build: `[executable, ...args]`. */
  command: [string, ...string[]];
  /** Directory watched for changes (recursively). */
  watchDir: string;
  cwd: string;
  /** Environment of the process (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Receives each output line of the build and the process, and the tool's own notes. */
  onLine: (line: string) => void;
}

function run(cmd: string, cwd: string, onLine: (l: string) => void): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, { cwd, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    pipeLines(child, onLine);
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

function pipeLines(child: ChildProcess, onLine: (l: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream?.on('data', (d: Buffer) => {
      const lines = (rest + d.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) onLine(l);
    });
  }
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** A process kept running from fresh builds. */
export class RestartingProcess {
  #child: ChildProcess | undefined;
  #watcher: ReturnType<typeof watch> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #queue: Promise<void> = Promise.resolve();
  /** Starts (build + run) this many times so far. */
  starts = 0;

  constructor(private readonly options: RestartingProcessOptions) {}

  /** Builds and starts, then restarts on changes (debounced by 300 ms). */
  async start(): Promise<void> {
    await this.restart('start');
    this.#watcher = watch(this.options.watchDir, { recursive: true }, (_event, file) => {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => void this.restart(`${file ?? 'a file'} changed`), 300);
    });
  }

  /** Rebuilds and restarts now (serialised with other restarts). */
  restart(reason: string): Promise<void> {
    this.#queue = this.#queue.then(async () => {
      const { build, cwd, onLine, command, env } = this.options;
      onLine(`[ccm-kit dev] ${reason}: ${build ? `building (${build}) and ` : ''}restarting the CCM`);
      if (build && (await run(build, cwd, onLine)) !== 0) {
        onLine('[ccm-kit dev] the build failed; the running CCM is kept. Fix the error and save again.');
        return;
      }
      // Forget the old process first: its exit is expected, not a crash to report.
      const old = this.#child;
      this.#child = undefined;
      await stop(old);
      const [exe, ...args] = command;
      const child = spawn(exe, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      pipeLines(child, onLine);
      const start = this.starts + 1;
      if (start > 1)
        child.once('spawn', () =>
          onLine(`[ccm-kit dev] the CCM is running again (start ${start}, pid ${child.pid}) after: ${reason}`),
        );
      child.once('exit', (code, signal) => {
        if (this.#child === child)
          onLine(`[ccm-kit dev] the CCM exited (${signal ?? `status ${code}`}); save a file to restart it`);
      });
      this.#child = child;
      this.starts++;
    });
    return this.#queue;
  }

  /** Stops watching and stops the process. */
  async close(): Promise<void> {
    this.#watcher?.close();
    clearTimeout(this.#timer);
    await this.#queue;
    const child = this.#child;
    this.#child = undefined;
    await stop(child);
  }
}
