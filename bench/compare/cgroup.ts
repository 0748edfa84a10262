/**
 * A cgroup v1 memory cgroup for one CCM process (`--mem-limit-mib`, or a config's `m<MiB>`): the memory
 * limit of a pod, as the Helm chart sets it (256 MiB by default). The cgroup is made a child of the
 * harness's own memory cgroup (read from /proc/self/cgroup), so what the machine accounts to the harness
 * still holds the CCM. The process joins it before its program starts (`sh -c 'echo $$ > cgroup.procs;
 * exec …'`), so Node sizes its default heap from the limit as it does in a pod (libuv's
 * `uv_get_constrained_memory`); Go's runtime does not look at it. After the process exited the cgroup
 * tells whether the kernel's OOM killer ran in it (`memory.oom_control`'s `oom_kill`), how often the limit
 * was hit (`memory.failcnt`) and the peak it charged (`memory.max_usage_in_bytes`: the process's anonymous
 * memory and the pages of files it was first to read; pages other processes cached first are charged to them);
 * then it is removed.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the cgroup v1 memory controller is mounted. */
export const MEMORY_CGROUP_ROOT = '/sys/fs/cgroup/memory';

/** What the cgroup recorded, read after its process exited. */
export interface CgroupMemoryStats {
  /** Processes the kernel's OOM killer killed in the cgroup. */
  oomKills: number;
  /** Times the usage hit the limit (reclaim was needed; not a kill by itself). */
  failcnt: number;
  /** Peak usage charged to the cgroup, bytes. */
  maxUsageBytes: number;
}

/**
 * The memory cgroup path of a process from its `/proc/<pid>/cgroup` text (the `memory` controller of
 * cgroup v1), e.g. `/process_api/0a1b`; undefined when the memory controller is not listed.
 */
export function memoryCgroupOf(procCgroup: string): string | undefined {
  for (const line of procCgroup.split('\n')) {
    const [, controllers, path] = line.split(':');
    if (controllers !== undefined && path !== undefined && controllers.split(',').includes('memory')) return path;
  }
  return undefined;
}

/** The `oom_kill` count of a `memory.oom_control` text (0 when the kernel does not report it). */
export function oomKillsOf(oomControl: string): number {
  return Number(/^oom_kill (\d+)$/m.exec(oomControl)?.[1] ?? 0);
}

/**
 * The command line that runs `command args…` inside the cgroup whose `cgroup.procs` is `procsFile`: the shell
 * writes its own pid there, then execs the command, so the process (same pid) starts in the cgroup.
 */
export function wrapInCgroup(procsFile: string, command: string, args: readonly string[]): [string, string[]] {
  // The path travels as $0's sibling argument, never inside the script text.
  return ['sh', ['-c', 'echo $$ > "$0" && exec "$@"', procsFile, command, ...args]];
}

/** A memory cgroup created for one process. */
export class MemoryCgroup {
  readonly path: string;
  readonly limitBytes: number;

  /**
   * Creates `<the harness's memory cgroup>/<name>` with `memory.limit_in_bytes` = `limitMiB` MiB (and the
   * same memory+swap limit where the kernel accounts swap, so the limit cannot be dodged by swapping).
   * @throws Error naming the path when the memory controller is not mounted or not writable (run as root).
   */
  constructor(name: string, limitMiB: number) {
    if (!Number.isInteger(limitMiB) || limitMiB < 1)
      throw new Error(`memory limit must be a positive number of MiB, got ${limitMiB}`);
    const own = memoryCgroupOf(readFileSync('/proc/self/cgroup', 'utf8'));
    if (own === undefined || !existsSync(MEMORY_CGROUP_ROOT)) {
      throw new Error(`--mem-limit-mib needs the cgroup v1 memory controller at ${MEMORY_CGROUP_ROOT}`);
    }
    this.path = join(MEMORY_CGROUP_ROOT, own, name);
    this.limitBytes = limitMiB * 2 ** 20;
    try {
      mkdirSync(this.path);
      writeFileSync(join(this.path, 'memory.limit_in_bytes'), String(this.limitBytes));
      const memsw = join(this.path, 'memory.memsw.limit_in_bytes');
      if (existsSync(memsw)) writeFileSync(memsw, String(this.limitBytes));
    } catch (err) {
      this.remove();
      throw new Error(`cannot create the memory cgroup ${this.path} (run as root): ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  /** `command args…` started inside this cgroup (see {@link wrapInCgroup}). */
  wrap(command: string, args: readonly string[]): [string, string[]] {
    return wrapInCgroup(join(this.path, 'cgroup.procs'), command, args);
  }

  /** What the cgroup recorded so far. */
  stats(): CgroupMemoryStats {
    const read = (f: string) => readFileSync(join(this.path, f), 'utf8');
    return {
      oomKills: oomKillsOf(read('memory.oom_control')),
      failcnt: Number(read('memory.failcnt').trim()),
      maxUsageBytes: Number(read('memory.max_usage_in_bytes').trim()),
    };
  }

  /** Removes the cgroup (once its processes have exited); never throws. */
  remove(): void {
    try {
      rmdirSync(this.path);
    } catch {
      // Gone already, or a process is still in it: the kernel refuses; nothing to leak but an empty directory.
    }
  }
}
