import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlPlaneStartError, ensureControlPlaneBinaries, startControlPlane } from '@ccm-kit/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

let parent: string;
beforeEach(() => {
  parent = mkdtempSync(join(tmpdir(), 'cp-fail-test-'));
});
afterEach(() => {
  rmSync(parent, { recursive: true, force: true });
});

/** Processes whose command line mentions `text` (Linux /proc). */
function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

function listen(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const srv = createServer().once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve(srv));
  });
}

describe('startControlPlane failures', () => {
  it('retries a port collision 3 times, then fails with the output, leaving nothing behind', async () => {
    const busy = await listen();
    const port = (busy.address() as { port: number }).port;
    try {
      // etcd's peer URL pointed at a port that is taken: every attempt collides.
      const err = await startControlPlane({
        tmpDir: parent,
        etcdFlags: {
          'listen-peer-urls': `http://127.0.0.1:${port}`,
          'initial-advertise-peer-urls': `http://127.0.0.1:${port}`,
          'initial-cluster': `default=http://127.0.0.1:${port}`,
        },
      }).catch((e) => e);
      expect(err).toBeInstanceOf(ControlPlaneStartError);
      expect(err.portCollision).toBe(true);
      expect(err.message).toContain('attempt 3 of 3');
      expect(err.message).toContain('address already in use');
      expect(readdirSync(parent)).toEqual([]);
      expect(processesMentioning(parent)).toEqual([]);
    } finally {
      busy.close();
    }
  });

  it('a kube-apiserver that cannot start fails at once with a clear error and stops etcd', async () => {
    const real = await ensureControlPlaneBinaries();
    const err = await startControlPlane({
      tmpDir: parent,
      binaries: { etcd: real.etcd, kubeApiServer: join(parent, 'no-such-kube-apiserver') },
    }).catch((e) => e);
    expect(err).toBeInstanceOf(ControlPlaneStartError);
    expect(err.portCollision).toBe(false);
    expect(err.message).toMatch(/kube-apiserver .*the process stopped before it was ready/);
    expect(err.message).toContain('ENOENT');
    expect(readdirSync(parent)).toEqual([]);
    expect(processesMentioning(parent)).toEqual([]); // etcd (its --data-dir is under parent) was stopped
  });

  it('rejects bad options naming the field', async () => {
    await expect(startControlPlane({ startTimeoutMs: -5 })).rejects.toThrow(
      /startTimeoutMs must be a positive number of ms/,
    );
    await expect(startControlPlane({ apiServerFlags: { '--v': '2' }, tmpDir: parent })).rejects.toThrow(
      /without leading dashes/,
    );
  });
});
