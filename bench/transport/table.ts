/** The table of `transport-requests.ts`: per request kind and metric, each checkout's median and its ratio. */
import { median } from '../compare/stats.ts';

/** What one child run measured for one request kind, per request (a watch: per event). */
export interface KindSample {
  kind: string;
  /** CPU (user + system) in microseconds. */
  cpuUs: number;
  /** Bytes allocated on the JS heap. */
  allocBytes: number;
  /** Wall time in microseconds. */
  wallUs: number;
}

/** One child run of one checkout. */
export interface RunSample {
  checkout: string;
  kinds: KindSample[];
}

const METRICS = [
  { key: 'cpuUs', label: 'CPU µs', digits: 1, scale: 1 },
  { key: 'allocBytes', label: 'allocated KiB', digits: 1, scale: 1 / 1024 },
  { key: 'wallUs', label: 'wall µs', digits: 0, scale: 1 },
] as const;

/**
 * A Markdown table: a row per request kind and metric, for each checkout (in `checkouts` order) the median over
 * its runs and, after the first, the ratio of that median to the first checkout's.
 */
export function renderTable(runs: readonly RunSample[], checkouts: readonly string[]): string {
  const kinds = [...new Set(runs.flatMap((r) => r.kinds.map((k) => k.kind)))];
  const head = ['request', 'metric', ...checkouts.flatMap((c, i) => (i === 0 ? [c] : [c, `÷ ${checkouts[0]}`]))];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const kind of kinds) {
    for (const m of METRICS) {
      const medians = checkouts.map((c) =>
        median(
          runs
            .filter((r) => r.checkout === c)
            .flatMap((r) => r.kinds.filter((k) => k.kind === kind).map((k) => k[m.key])),
        ),
      );
      const cells = medians.flatMap((v, i) => {
        const value = Number.isNaN(v) ? '–' : (v * m.scale).toFixed(m.digits);
        const ratio = v / medians[0]!;
        return i === 0 ? [value] : [value, Number.isFinite(ratio) ? ratio.toFixed(2) : '–'];
      });
      lines.push(`| ${kind} | ${m.label} | ${cells.join(' | ')} |`);
    }
  }
  return lines.join('\n');
}
