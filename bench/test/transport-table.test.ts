import { describe, expect, it } from 'vitest';
import { renderTable, type RunSample } from '../transport/table.ts';

const run = (checkout: string, cpuUs: number, allocBytes: number, wallUs: number): RunSample => ({
  checkout,
  kinds: [{ kind: 'GET Node', cpuUs, allocBytes, wallUs }],
});

describe('renderTable', () => {
  it('gives each checkout the median of its runs and the ratio to the first checkout', () => {
    const runs = [
      run('a', 100, 1024, 1000),
      run('b', 50, 4096, 900),
      run('a', 300, 3072, 3000),
      run('b', 70, 2048, 1100),
    ];
    runs.push(run('a', 200, 2048, 2000));
    const lines = renderTable(runs, ['a', 'b']).split('\n');
    expect(lines[0]).toBe('| request | metric | a | b | ÷ a |');
    expect(lines[1]).toBe('|---|---|---|---|---|');
    // a: medians 200 µs, 2 KiB, 2000 µs; b: 60 µs, 3 KiB, 1000 µs.
    expect(lines[2]).toBe('| GET Node | CPU µs | 200.0 | 60.0 | 0.30 |');
    expect(lines[3]).toBe('| GET Node | allocated KiB | 2.0 | 3.0 | 1.50 |');
    expect(lines[4]).toBe('| GET Node | wall µs | 2000 | 1000 | 0.50 |');
    expect(lines).toHaveLength(5);
  });

  it('shows – for a checkout without runs of a kind', () => {
    const table = renderTable([run('a', 10, 0, 1)], ['a', 'b']);
    expect(table).toContain('| GET Node | CPU µs | 10.0 | – | – |');
  });
});
