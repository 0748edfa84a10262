import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultPortLockDir, PORT_CLAIM_TTL_MS, reservePort } from '../src/control-plane/ports.js';

let lockDir: string;
beforeEach(() => {
  lockDir = mkdtempSync(join(tmpdir(), 'cp-ports-test-'));
});
afterEach(() => {
  rmSync(lockDir, { recursive: true, force: true });
});

/** Candidate source returning the given ports in order (then repeating the last). */
function sequence(...ports: number[]) {
  let i = 0;
  return async () => ports[Math.min(i++, ports.length - 1)]!;
}

describe('reservePort', () => {
  it('claims a kernel-free port with an O_EXCL lock file holding our pid, and it can be bound', async () => {
    const r = await reservePort({ lockDir });
    expect(r.port).toBeGreaterThan(0);
    expect(r.lockPath).toBe(join(lockDir, `port-${r.port}`));
    expect(readFileSync(r.lockPath, 'utf8').trim()).toBe(String(process.pid));
    await new Promise<void>((resolve, reject) => {
      const srv = createServer().once('error', reject);
      srv.listen(r.port, '127.0.0.1', () => srv.close(() => resolve()));
    });
    await r.release();
    expect(existsSync(r.lockPath)).toBe(false);
    await r.release(); // idempotent
  });

  it('skips a port another process claimed less than 2 minutes ago', async () => {
    writeFileSync(join(lockDir, 'port-40001'), '999999\n');
    const r = await reservePort({ lockDir, candidate: sequence(40001, 40002) });
    expect(r.port).toBe(40002);
    expect(readFileSync(join(lockDir, 'port-40001'), 'utf8')).toBe('999999\n');
  });

  it('takes over a claim older than the TTL', async () => {
    const stale = join(lockDir, 'port-40003');
    writeFileSync(stale, '999999\n');
    const old = new Date(Date.now() - PORT_CLAIM_TTL_MS - 5_000);
    utimesSync(stale, old, old);
    const r = await reservePort({ lockDir, candidate: sequence(40003) });
    expect(r.port).toBe(40003);
    expect(readFileSync(stale, 'utf8').trim()).toBe(String(process.pid));
  });

  it('refresh() renews the claim time, and recreates a removed lock', async () => {
    const r = await reservePort({ lockDir, candidate: sequence(40004) });
    const old = new Date(Date.now() - 60_000);
    utimesSync(r.lockPath, old, old);
    await r.refresh();
    expect(Date.now() - statSync(r.lockPath).mtimeMs).toBeLessThan(10_000);
    rmSync(r.lockPath);
    await r.refresh();
    expect(existsSync(r.lockPath)).toBe(true);
  });

  it('of many concurrent claims for the same port exactly one wins', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => reservePort({ lockDir, attempts: 1, candidate: sequence(40005) })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(19);
  });

  it('of many concurrent takeovers of the same stale claim exactly one wins', async () => {
    const stale = join(lockDir, 'port-40006');
    writeFileSync(stale, '999999\n');
    const old = new Date(Date.now() - PORT_CLAIM_TTL_MS - 5_000);
    utimesSync(stale, old, old);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => reservePort({ lockDir, attempts: 1, candidate: sequence(40006) })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('gives up after `attempts` with an error naming the lock directory', async () => {
    writeFileSync(join(lockDir, 'port-40007'), 'x');
    await expect(reservePort({ lockDir, attempts: 3, candidate: sequence(40007) })).rejects.toThrow(
      `no free port could be claimed in ${lockDir} after 3 attempts`,
    );
  });

  it('concurrent kernel reservations get distinct ports', async () => {
    const rs = await Promise.all(Array.from({ length: 10 }, () => reservePort({ lockDir })));
    expect(new Set(rs.map((r) => r.port)).size).toBe(10);
    await Promise.all(rs.map((r) => r.release()));
  });
});

describe('defaultPortLockDir', () => {
  it('is kubebuilder-envtest under XDG_CACHE_HOME, else ~/.cache', () => {
    expect(defaultPortLockDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/kubebuilder-envtest');
    expect(defaultPortLockDir({})).toMatch(/\/\.cache\/kubebuilder-envtest$/);
  });
});
