import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MEMORY_CGROUP_ROOT, MemoryCgroup, memoryCgroupOf, oomKillsOf, wrapInCgroup } from '../compare/cgroup.ts';

describe('cgroup helpers', () => {
  it('finds the memory controller in /proc/<pid>/cgroup', () => {
    const text = '9:name=systemd:/\n4:memory:/process_api/0a1b\n2:cpu,cpuacct:/\n0::/\n';
    expect(memoryCgroupOf(text)).toBe('/process_api/0a1b');
    expect(memoryCgroupOf('0::/user.slice\n')).toBeUndefined();
  });

  it('reads oom_kill from memory.oom_control, 0 when the kernel has no such line', () => {
    expect(oomKillsOf('oom_kill_disable 0\nunder_oom 0\noom_kill 2\n')).toBe(2);
    expect(oomKillsOf('oom_kill_disable 0\nunder_oom 0\n')).toBe(0);
  });

  it('wraps a command so that the shell joins the cgroup and execs it, the path outside the script', () => {
    const [cmd, args] = wrapInCgroup('/cg/x y/cgroup.procs', 'taskset', ['-c', '1', 'node', 'main.js']);
    expect(cmd).toBe('sh');
    expect(args).toEqual([
      '-c',
      'echo $$ > "$0" && exec "$@"',
      '/cg/x y/cgroup.procs',
      'taskset',
      '-c',
      '1',
      'node',
      'main.js',
    ]);
  });
});

const writable = (() => {
  try {
    accessSync(MEMORY_CGROUP_ROOT, constants.W_OK);
    return existsSync(`${MEMORY_CGROUP_ROOT}/memory.limit_in_bytes`);
  } catch {
    return false;
  }
})();

// Needs root and the cgroup v1 memory controller (the benchmark machines have both).
describe.runIf(writable)('MemoryCgroup on this machine', () => {
  const run = (cg: MemoryCgroup, script: string) => {
    const [cmd, args] = cg.wrap(process.execPath, ['-e', script]);
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    return new Promise<{ out: string; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (_code, signal) => resolve({ out, signal })),
    );
  };

  it('starts the process inside the limit, where Node sizes its heap from it, and is removed after', async () => {
    const cg = new MemoryCgroup(`ccm-kit-bench-test-${process.pid}-a`, 128);
    try {
      expect(readFileSync(`${cg.path}/memory.limit_in_bytes`, 'utf8').trim()).toBe(String(128 * 2 ** 20));
      const { out, signal } = await run(
        cg,
        "const fs=require('fs');console.log(fs.readFileSync('/proc/self/cgroup','utf8').split('\\n').find(l=>l.includes(':memory:')));console.log(process.constrainedMemory())",
      );
      expect(signal).toBeNull();
      const [line, constrained] = out.trim().split('\n');
      expect(cg.path.endsWith(line!.split(':')[2]!)).toBe(true);
      // What Node sizes its default heap limit from (node.cc: uv_get_constrained_memory()).
      expect(Number(constrained)).toBe(128 * 2 ** 20);
      expect(cg.stats().oomKills).toBe(0);
    } finally {
      cg.remove();
    }
    expect(existsSync(cg.path)).toBe(false);
  });

  it('reports an OOM kill of a process that outgrows the limit', async () => {
    const cg = new MemoryCgroup(`ccm-kit-bench-test-${process.pid}-b`, 64);
    try {
      const { signal } = await run(cg, 'const a=[];for(;;)a.push(Buffer.alloc(8*2**20,1))');
      expect(signal).toBe('SIGKILL');
      const s = cg.stats();
      expect(s.oomKills).toBeGreaterThanOrEqual(1);
      expect(s.maxUsageBytes).toBe(64 * 2 ** 20);
    } finally {
      cg.remove();
    }
  });
});
