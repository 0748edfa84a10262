import { eventuallyValue } from '@ccm-kit/testing/vitest';
import { describe, expect, it } from 'vitest';
import { alive } from './alive.js';
import { NotReadyError, waitUntil } from '../src/control-plane/health.js';
import { ManagedProcess } from '../src/control-plane/managed-process.js';

const sh = (script: string) => new ManagedProcess({ name: 'sh', command: '/bin/sh', args: ['-c', script] });

const until = (cond: () => boolean) => eventuallyValue(cond, { timeoutMs: 5_000, intervalMs: 20 });

describe('ManagedProcess', () => {
  it('runs in its own process group and stop() ends the whole group with SIGTERM', async () => {
    const p = sh('sleep 30 & echo "child $!"; wait');
    await until(() => /child \d+/.test(p.output.toString()));
    const grandchild = Number(/child (\d+)/.exec(p.output.toString())![1]);
    expect(p.running).toBe(true);
    expect(alive(grandchild)).toBe(true);
    const exit = await p.stop(5_000);
    expect(exit.signal).toBe('SIGTERM');
    expect(p.running).toBe(false);
    await until(() => !alive(grandchild));
    await p.stop(5_000); // idempotent
  });

  it('escalates to SIGKILL when SIGTERM is ignored past the timeout', async () => {
    const p = sh('trap "" TERM; echo ready; while :; do sleep 0.05; done');
    await until(() => p.output.toString().includes('ready'));
    const started = Date.now();
    const exit = await p.stop(300);
    expect(exit.signal).toBe('SIGKILL');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('keeps output for error messages and reports how it ended', async () => {
    const p = sh('echo to-stdout; echo to-stderr >&2; exit 7');
    const exit = await p.exited;
    expect(exit.code).toBe(7);
    await until(() => p.output.toString().includes('to-stderr'));
    expect(p.describe()).toMatch(/sh exited \(code 7, signal -\)\. Last output:\n[\s\S]*to-stdout[\s\S]*to-stderr/);
  });

  it('a missing binary is not running and its error is in the output', async () => {
    const p = new ManagedProcess({ name: 'ghost', command: '/nonexistent/ghost', args: [] });
    await p.exited;
    expect(p.running).toBe(false);
    expect(p.output.toString()).toContain('ENOENT');
  });
});

describe('waitUntil', () => {
  it('fails fast with the output when the process exits', async () => {
    const p = sh('echo "bind: address already in use" >&2; exit 1');
    const started = Date.now();
    const err = await waitUntil(async () => false, {
      what: 'thing',
      deadline: Date.now() + 30_000,
      process: p,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(NotReadyError);
    expect(err.message).toMatch(/thing: the process stopped before it was ready/);
    expect(err.message).toContain('address already in use');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('times out at the deadline with the last error', async () => {
    const err = await waitUntil(
      async () => {
        throw new Error('connect ECONNREFUSED');
      },
      { what: 'svc', deadline: Date.now() + 200, intervalMs: 20 },
    ).catch((e) => e);
    expect(err).toBeInstanceOf(NotReadyError);
    expect(err.message).toBe('svc: not ready in time (last error: connect ECONNREFUSED).');
  });

  it('resolves once the check passes', async () => {
    let n = 0;
    await waitUntil(async () => ++n >= 3, { what: 'x', deadline: Date.now() + 5_000, intervalMs: 10 });
    expect(n).toBe(3);
  });
});
