import { describe, expect, it } from 'vitest';
import { configKey, parseConfigs, type PlanOptions } from '../compare/plan.ts';
import type { Impl } from '../compare/run.ts';
import { workloadById } from '../compare/workloads/index.ts';

const impl = (id: Impl['id']): Impl => ({ id, label: id, command: id, prefixArgs: [], extraArgs: [] });
const o: PlanOptions = { reps: 3, qps: 20, burst: 30, latencyMs: 0, memLimitMiB: 0, impls: [impl('ts'), impl('go')] };
const defaults = { qps: 20, burst: 30, latencyMs: 0 };

describe('W10 configs', () => {
  it('reads N:S:G:c, takes its own client QPS unless q says otherwise, and adds Go at c beside Go at 1', () => {
    const [c, q] = parseConfigs(workloadById('W10'), '200:500:10:10x1l20,20:50:5:4q50', o);
    expect(c).toMatchObject({
      workload: 'W10',
      nodes: 200,
      services: 500,
      groups: 10,
      concurrency: 10,
      latencyMs: 20,
      reps: 1,
      qps: 1000,
      burst: 2000,
    });
    expect(c!.impls.map((i) => i.id)).toEqual(['ts', 'go', 'go-at-c']);
    expect(c!.impls.map((i) => i.label)).toEqual([
      'ts',
      'go, --concurrent-service-syncs=1',
      'go, --concurrent-service-syncs=10',
    ]);
    expect(configKey(c!, defaults)).toBe('W10 N=200 S=500 G=10 c=10 q1000/2000 l20');
    expect(q).toMatchObject({ groups: 5, concurrency: 4, qps: 50, burst: 100 });
    expect(q!.impls.at(-1)!.label).toBe('go, --concurrent-service-syncs=4');
  });

  it('runs no Go row at c when Go is not asked for', () => {
    const [c] = parseConfigs(workloadById('W10'), '20:50:5:4@ts', o);
    expect(c!.impls.map((i) => i.id)).toEqual(['ts']);
  });

  it('names the flag and the form of a malformed config', () => {
    expect(() => parseConfigs(workloadById('W10'), '200:500:10', o)).toThrow(/--w10: "200:500:10" is not N:S:G:c/);
    expect(() => parseConfigs(workloadById('W10'), '200:500:0:10', o)).toThrow(/--w10/);
  });
});

describe('W9 configs', () => {
  it('reads N:M:J:S:rps and the repetitions', () => {
    const [c] = parseConfigs(workloadById('W9'), '2000:200:100:20:10x1', o);
    expect(c).toMatchObject({
      workload: 'W9',
      nodes: 2000,
      services: 200,
      k: 100,
      newServices: 20,
      cloudRps: 10,
      reps: 1,
      memLimitMiB: 0,
    });
    expect(configKey(c!, defaults)).toBe('W9 N=2000 M=200 J=100 S=20 rps=10');
  });

  it('names the flag and the form of a malformed config', () => {
    expect(() => parseConfigs(workloadById('W9'), '2000:200:100:20', o)).toThrow(
      /--w9: "2000:200:100:20" is not N:M:J:S:rps/,
    );
    expect(() => parseConfigs(workloadById('W9'), '2000:200:100:20:0', o)).toThrow(/--w9/);
  });
});

describe('memory limits', () => {
  it('takes --mem-limit-mib unless a config says m<MiB>, and m0 means none', () => {
    const limited = { ...o, memLimitMiB: 256 };
    const [a, b, c] = parseConfigs(
      workloadById('W8'),
      '5000:1000:10x1q1000/2000@ts+go,100:10:10m512,100:10:10m0',
      limited,
    );
    expect(a).toMatchObject({ memLimitMiB: 256, qps: 1000, burst: 2000, reps: 1 });
    expect(a!.impls.map((i) => i.id)).toEqual(['ts', 'go']);
    expect(b!.memLimitMiB).toBe(512);
    expect(c!.memLimitMiB).toBe(0);
    expect(configKey(a!, defaults)).toBe('W8 N=5000 M=1000 c=10 q1000/2000 mem 256 MiB');
    expect(configKey(c!, defaults)).toBe('W8 N=100 M=10 c=10');
  });

  it('leaves the existing workloads without a limit by default', () => {
    const [w1] = parseConfigs(workloadById('W1'), '1000:10x2q1000/2000@ts+go', o);
    expect(w1).toMatchObject({ memLimitMiB: 0, newServices: 0, cloudRps: 0, groups: 0 });
    const [w2] = parseConfigs(workloadById('W2'), '100:10:10', o);
    expect(w2).toMatchObject({ qps: 20, burst: 30 }); // --qps/--burst; only W10 has its own
  });
});
