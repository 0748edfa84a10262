/**
 * The cost of a batch of requests in this process: CPU (`process.cpuUsage`), JS heap bytes allocated and wall.
 *
 * Allocation: Node 24's `v8.getHeapStatistics()` has no `total_allocated_bytes`, so it is the growth of the used
 * heap over the batch plus what each garbage collection during it freed (`v8.GCProfiler`'s before/after used
 * sizes). Needs `--expose-gc` (a collection before each batch).
 */
import { GCProfiler, getHeapStatistics } from 'node:v8';
import type { KindSample } from './table.ts';

const gc = (globalThis as { gc?: () => void }).gc;

/** Runs `once` `warmup` times, then `n` times measured; the result is per call (or per `perBatch` unit). */
export async function measureBatch(
  kind: string,
  n: number,
  once: (i: number) => Promise<void>,
  opts: { warmup?: number; units?: number } = {},
): Promise<KindSample> {
  if (!gc) throw new Error('run with --expose-gc');
  for (let i = 0; i < (opts.warmup ?? Math.min(20, Math.ceil(n / 5))); i++) await once(i);
  gc();
  const profiler = new GCProfiler();
  profiler.start();
  const heap0 = getHeapStatistics().used_heap_size;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await once(i);
  const wallUs = (performance.now() - t0) * 1000;
  const cpu = process.cpuUsage(cpu0);
  const heap1 = getHeapStatistics().used_heap_size;
  const freed = (profiler.stop()?.statistics ?? []).reduce(
    (sum, s) => sum + s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize,
    0,
  );
  const units = opts.units ?? n;
  return {
    kind,
    cpuUs: (cpu.user + cpu.system) / units,
    allocBytes: (heap1 - heap0 + freed) / units,
    wallUs: wallUs / units,
  };
}
