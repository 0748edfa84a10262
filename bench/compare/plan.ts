/**
 * The benchmark plan: workload configs parsed from `--w1=…` … `--w10=…` and the default matrices.
 *
 * A config is the workload's sizes separated by `:` (W1 `N:c`, W2 `N:M:c`, W3 `N:M:K:c`, W4 `N:S:c`,
 * W5 `N:K:c`, W6 `N:M:min`, W7 `N:M:c`, W8 `N:M:c`, W9 `N:M:J:S:rps`, W10 `N:S:G:c`), optionally followed by `b` (ccm-kit's
 * fakebench offers the batch read `listInstanceStates`, 500 instances per page; Go runs the config unchanged), `x<R>`
 * (repetitions instead of --reps), `q<qps>[/<burst>]` (client QPS/burst instead of --qps/--burst, or W10's own
 * 1000/2000; burst defaults to 2 × qps), `l<ms>` (fakebench latency instead of --latency-ms), `m<MiB>` (each CCM in a memory
 * cgroup with this limit instead of --mem-limit-mib; `m0`: none) and `@impl+impl` (a subset of --impls),
 * e.g. `1000:10x3q1000/2000m256@ts+go`.
 */
import type { Impl, RunSpec } from './run.ts';
import { WORKLOADS, type Workload } from './workloads/index.ts';

export type Config = Omit<RunSpec, 'impl' | 'timeoutMs' | 'keepLogsDir'> & { reps: number; impls: Impl[] };

/** The fields of a config that tell two configs apart (every {@link Config} field but reps and impls). */
export const CONFIG_FIELDS = [
  'workload',
  'nodes',
  'services',
  'k',
  'minutes',
  'concurrency',
  'qps',
  'burst',
  'latencyMs',
  'memLimitMiB',
  'newServices',
  'cloudRps',
  'groups',
] as const satisfies readonly (keyof Config)[];

/**
 * Per workload: the quick profile (about 3 minutes on a quiet 2-core machine) and the full matrix (about 30
 * minutes, a third of it W6's 10-minute idle window). The full matrix compares ccm-kit with Go protobuf
 * (the performance targets) and adds Go JSON only where it costs little.
 */
export const DEFAULTS: Record<'quick' | 'full', Record<string, string>> = {
  quick: {
    w1: '100:10',
    w2: '100:10:10',
    w3: '20:5:2:10@ts+go',
    w4: '20:5:10@ts+go',
    w5: '20:2:10@ts+go',
    w6: '',
    w7: '20:5:10@ts+go',
    w8: '',
    w9: '',
    w10: '',
  },
  full: {
    w1: '100:10x1,1000:10x2q1000/2000@ts+go,100:10x1l50@ts+go',
    w2: '100:10:10x1,1000:100:10x1@ts+go,1000:200:10x2q1000/2000@ts+go,100:10:10x1l50@ts+go',
    w3: '200:50:5:10x1@ts+go',
    w4: '200:50:10x1@ts+go',
    w5: '200:10:10x1@ts+go',
    w6: '1000:100:10x1',
    w7: '1000:100:10x1@ts+go',
    w8: '5000:1000:10x1q1000/2000@ts+go',
    w9: '',
    w10: '',
  },
};

export interface PlanOptions {
  reps: number;
  qps: number;
  burst: number;
  latencyMs: number;
  /** --mem-limit-mib (0: none). */
  memLimitMiB: number;
  /** The implementations of --impls, in order. */
  impls: Impl[];
}

/**
 * Parses one workload's config list (empty: none).
 * @throws Error naming the flag and the expected form on a malformed config or an implementation not in --impls.
 */
export function parseConfigs(w: Workload, text: string, o: PlanOptions): Config[] {
  if (text.trim() === '') return [];
  const flag = `--${w.id.toLowerCase()}`;
  const form = w.sizes.map((s) => s.letter).join(':');
  return text.split(',').map((raw) => {
    const m = /^([\d:]+)(b)?(?:x(\d+))?(?:q(\d+)(?:\/(\d+))?)?(?:l(\d+(?:\.\d+)?))?(?:m(\d+))?(?:@([a-z+-]+))?$/.exec(
      raw.trim(),
    );
    const sizes = m ? m[1]!.split(':').map(Number) : [];
    if (!m || sizes.length !== w.sizes.length || sizes.some((x) => !Number.isInteger(x) || x < 1)) {
      throw new Error(
        `${flag}: ${JSON.stringify(raw)} is not ${form} (positive integers) with optional b, xR, qQPS[/BURST], lMS, mMiB and @impl+impl`,
      );
    }
    const c: Config = {
      workload: w.id,
      nodes: 0,
      services: 0,
      k: 0,
      minutes: 0,
      concurrency: 10,
      batch: m[2] === 'b',
      qps: m[4] ? Number(m[4]) : (w.qps?.qps ?? o.qps),
      burst: m[5] ? Number(m[5]) : m[4] ? 2 * Number(m[4]) : (w.qps?.burst ?? o.burst),
      latencyMs: m[6] ? Number(m[6]) : o.latencyMs,
      memLimitMiB: m[7] ? Number(m[7]) : o.memLimitMiB,
      newServices: 0,
      cloudRps: 0,
      groups: 0,
      reps: m[3] ? Number(m[3]) : o.reps,
      impls: o.impls,
    };
    w.sizes.forEach((s, i) => {
      c[s.field] = sizes[i]!;
    });
    if (m[8]) {
      const ids = m[8].split('+');
      for (const id of ids) {
        if (!o.impls.some((i) => i.id === id))
          throw new Error(`${flag}: implementation ${JSON.stringify(id)} is not in --impls`);
      }
      c.impls = o.impls.filter((i) => ids.includes(i.id));
    }
    if (w.id === 'W10') c.impls = withGoAtConcurrency(c.impls, c.concurrency);
    return c;
  });
}

/**
 * W10's implementations: Go protobuf runs at `--concurrent-service-syncs=1` (what a vendor of shared balancers must
 * run), and a second Go row, `go-at-c`, right after it at the config's concurrency (to show the conflicts that
 * force 1).
 */
function withGoAtConcurrency(impls: Impl[], c: number): Impl[] {
  return impls.flatMap((i) =>
    i.id === 'go'
      ? [
          { ...i, label: `${i.label}, --concurrent-service-syncs=1` },
          { ...i, id: 'go-at-c' as const, label: `${i.label}, --concurrent-service-syncs=${c}` },
        ]
      : [i],
  );
}

/** The configs of every workload: `--wN` when given, else the profile's default. */
export function buildPlan(
  opt: (name: string) => string | undefined,
  profile: 'quick' | 'full',
  o: PlanOptions,
): Config[] {
  return WORKLOADS.flatMap((w) => {
    const flag = w.id.toLowerCase();
    return parseConfigs(w, opt(flag) ?? DEFAULTS[profile][flag]!, o);
  });
}

/**
 * `W2 N=1000 M=200 c=10 q1000/2000 l50 mem 256 MiB`: sizes, `batch` with the `b` suffix, then QPS and latency
 * where they differ from the defaults, and the memory limit where there is one.
 */
export function configKey(c: Config | RunSpec, defaults: { qps: number; burst: number; latencyMs: number }): string {
  const w = WORKLOADS.find((x) => x.id === c.workload)!;
  const parts = [c.workload, ...w.sizes.map((s) => `${s.letter}=${c[s.field]}`)];
  if (c.batch) parts.push('batch');
  if (c.qps !== defaults.qps || c.burst !== defaults.burst) parts.push(`q${c.qps}/${c.burst}`);
  if (c.latencyMs !== defaults.latencyMs) parts.push(`l${c.latencyMs}`);
  if (c.memLimitMiB > 0) parts.push(`mem ${c.memLimitMiB} MiB`);
  return parts.join(' ');
}
