import { describe, expect, it } from 'vitest';
import { configKey, parseConfigs, type PlanOptions } from '../compare/plan.ts';
import type { Impl } from '../compare/run.ts';
import { workloadById } from '../compare/workloads/index.ts';

const impl = (id: Impl['id']): Impl => ({ id, label: id, command: id, prefixArgs: [], extraArgs: [] });
const o: PlanOptions = { reps: 3, qps: 20, burst: 30, latencyMs: 0, memLimitMiB: 0, impls: [impl('ts'), impl('go')] };
const defaults = { qps: 20, burst: 30, latencyMs: 0 };

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
    expect(w1).toMatchObject({ memLimitMiB: 0, newServices: 0, cloudRps: 0 });
  });
});
