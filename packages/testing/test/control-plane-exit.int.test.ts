import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { alive } from './alive.js';

// A separate Node process starts a control plane from the built package (dist/) and then dies
// without calling stop(); the exit/signal hooks must take etcd and kube-apiserver down with it.
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  info: { pids: { etcd?: number; apiServer?: number }; dir: string };
  stderr: string;
}

function runChild(ending: string): Promise<ChildResult> {
  const script = `
    const { startControlPlane } = await import('@ccm-kit/testing');
    const cp = await startControlPlane();
    process.stdout.write(JSON.stringify({ pids: cp.pids(), dir: cp.dir }) + '\\n');
    setInterval(() => {}, 1000);
    ${ending}
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      err += c;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) return reject(new Error(`child printed no control-plane info (code ${code}):\n${err}`));
      resolve({ code, signal, info: JSON.parse(line), stderr: err });
    });
  });
}

async function gone(pid: number, timeoutMs = 5_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

describe('control plane cleanup when the test process dies', () => {
  it('process.exit() without stop(): children killed, temp dir removed, exit code kept', async () => {
    const r = await runChild('process.exit(3);');
    expect(r.code).toBe(3);
    expect(r.info.pids.etcd).toBeGreaterThan(0);
    expect(r.info.pids.apiServer).toBeGreaterThan(0);
    expect(await gone(r.info.pids.etcd!)).toBe(true);
    expect(await gone(r.info.pids.apiServer!)).toBe(true);
    expect(existsSync(r.info.dir)).toBe(false);
  });

  it('SIGTERM: children killed, temp dir removed, and the process still dies by SIGTERM', async () => {
    const r = await runChild("process.kill(process.pid, 'SIGTERM');");
    expect(r.signal).toBe('SIGTERM');
    expect(await gone(r.info.pids.etcd!)).toBe(true);
    expect(await gone(r.info.pids.apiServer!)).toBe(true);
    expect(existsSync(r.info.dir)).toBe(false);
  });
});
