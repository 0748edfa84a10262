import { createServer } from 'node:net';
import { eventually } from '@ccm-kit/testing/vitest';
import { describe, expect, it } from 'vitest';
import { type Backend, backendKey, HealthChecker, tcpProbe } from '../src/proxy/health.js';

const a: Backend = { host: '127.0.1.1', port: 30001 };
const b: Backend = { host: 'fd00::2', port: 30001 };

/** A checker whose probe answers from `up` (by backend key). */
function scripted(up: Map<string, boolean>) {
  const probes: string[] = [];
  const checker = new HealthChecker({
    intervalMs: 60_000,
    probe: async (backend) => {
      probes.push(backendKey(backend));
      if (!up.get(backendKey(backend))) throw new Error('refused');
    },
  });
  return { checker, probes };
}

describe('HealthChecker', () => {
  it('marks a backend unhealthy after 2 failures and healthy after 1 success', async () => {
    const up = new Map([
      ['127.0.1.1:30001', true],
      ['[fd00::2]:30001', true],
    ]);
    const { checker } = scripted(up);
    const changes: string[] = [];
    checker.onChange((k, h) => changes.push(`${k}=${h}`));
    checker.setTargets([a, b]);
    expect(checker.snapshot()).toEqual({ '127.0.1.1:30001': true, '[fd00::2]:30001': true });

    up.set('127.0.1.1:30001', false);
    await checker.checkNow();
    expect(checker.isHealthy('127.0.1.1:30001')).toBe(true); // one failure is not enough
    await checker.checkNow();
    expect(checker.isHealthy('127.0.1.1:30001')).toBe(false);
    up.set('127.0.1.1:30001', true);
    await checker.checkNow();
    expect(checker.isHealthy('127.0.1.1:30001')).toBe(true);
    expect(changes).toEqual(['127.0.1.1:30001=false', '127.0.1.1:30001=true']);
    expect(checker.isHealthy('[fd00::2]:30001')).toBe(true);
  });

  it('a success in between resets the failure count', async () => {
    const up = new Map([['127.0.1.1:30001', false]]);
    const { checker } = scripted(up);
    checker.setTargets([a]);
    await checker.checkNow();
    up.set('127.0.1.1:30001', true);
    await checker.checkNow();
    up.set('127.0.1.1:30001', false);
    await checker.checkNow();
    expect(checker.isHealthy('127.0.1.1:30001')).toBe(true);
  });

  it('checks new targets at once when running, and forgets removed ones', async () => {
    const up = new Map<string, boolean>();
    const { checker, probes } = scripted(up);
    checker.start();
    checker.setTargets([a]);
    await eventually(() => expect(probes).toContain('127.0.1.1:30001'), { timeoutMs: 5_000, intervalMs: 5 });
    checker.setTargets([b]);
    expect(Object.keys(checker.snapshot())).toEqual(['[fd00::2]:30001']);
    expect(checker.isHealthy('127.0.1.1:30001')).toBe(true); // unknown counts as healthy
    checker.stop();
  });

  it('runs rounds every interval until stopped', async () => {
    let probes = 0;
    const checker = new HealthChecker({
      intervalMs: 30,
      probe: async () => {
        probes++;
      },
    });
    checker.setTargets([a]);
    checker.start();
    await new Promise((r) => setTimeout(r, 200));
    checker.stop();
    const seen = probes;
    expect(seen).toBeGreaterThanOrEqual(3);
    await new Promise((r) => setTimeout(r, 100));
    expect(probes).toBe(seen);
  });

  it('refuses invalid numbers', () => {
    expect(() => new HealthChecker({ intervalMs: 0 })).toThrow('intervalMs must be a positive number, got 0');
  });
});

describe('tcpProbe', () => {
  it('succeeds against a listener and fails against a closed port', async () => {
    const server = createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.1.9', r));
    const port = (server.address() as { port: number }).port;
    await expect(tcpProbe({ host: '127.0.1.9', port }, 1_000)).resolves.toBeUndefined();
    await new Promise<void>((r) => server.close(() => r()));
    await expect(tcpProbe({ host: '127.0.1.9', port }, 1_000)).rejects.toThrow(/ECONNREFUSED/);
  });
});
