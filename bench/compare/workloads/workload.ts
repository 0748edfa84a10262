/**
 * The shape of one benchmark workload (W1–W8): its config sizes, the controllers and flags both CCMs
 * get, how the harness drives it (set-up, spawn, convergence) and what it adds to the report.
 */
import type { CounterLine } from '../../fakebench.ts';
import type { Harness } from '../harness.ts';
import type { RunSpec } from '../run.ts';

export type WorkloadId = 'W1' | 'W2' | 'W3' | 'W4' | 'W5' | 'W6' | 'W7' | 'W8' | 'W9' | 'W10';

/** What a driver measured; the run frame adds CPU, memory, API and cloud counts and the parity dump. */
export interface Measured {
  /** The measured interval (Unix ms, harness clock); wall = end − start. */
  startMs: number;
  endMs: number;
  /** Per-object latencies, ms (empty when the workload has none). */
  latenciesMs: number[];
  /** CPU seconds of the CCM when the workload's own phase began (W2: readiness), for the phase share. */
  cpuPhaseStartS?: number;
  /** Count API requests from this Unix ms on (W7: the restart); default: all. */
  apiFromMs?: number;
  /** Workload figures (keys of {@link Workload.columns}). */
  extra: Record<string, number>;
  /** Figures from the final counters line (read after the CCM exited). */
  finalize?: (final: CounterLine) => Record<string, number>;
  /** Values added to the parity dump's `cloud/fakebench` entry (must be equal across implementations). */
  parity?: Record<string, string>;
}

/** A size in a config (`N:M:c` …): its letter and the {@link RunSpec} field it sets. */
export interface SizeField {
  letter: string;
  field: 'nodes' | 'services' | 'k' | 'minutes' | 'concurrency' | 'newServices' | 'cloudRps' | 'groups';
}

export interface Workload {
  id: WorkloadId;
  /** Heading of its report section. */
  title: string;
  sizes: readonly SizeField[];
  /** `--controllers=` of both CCMs. */
  controllers: string;
  /** Workload flags for both CCMs (after the shared ones). */
  flags?: (spec: RunSpec) => string[];
  /** fakebench environment for both CCMs. */
  env?: (spec: RunSpec) => Record<string, string>;
  /** Extra report columns, from {@link Measured.extra} and {@link Measured.finalize}. */
  columns: readonly { key: string; label: string; digits: number }[];
  /** Run the implementations of one repetition at the same time (W6: idle processes do not compete). */
  concurrent?: boolean;
  /**
   * The client QPS/burst of a config without `q` (W10: 1000/2000, so that the API's rate limit does not hide the
   * cloud's serialization); default `--qps`/`--burst`.
   */
  qps?: { qps: number; burst: number };
  /** Upper bound of one run, ms, before it is abandoned as failed. */
  timeoutMs: (spec: Omit<RunSpec, 'impl' | 'timeoutMs' | 'keepLogsDir'>) => number;
  drive(h: Harness): Promise<Measured>;
  /** Invariant checks on the final counters; each string is a problem. */
  verify?: (spec: RunSpec, final: CounterLine) => string[];
}

/** The size fields by letter, for {@link Workload.sizes}. */
export const SIZE = {
  N: { letter: 'N', field: 'nodes' },
  M: { letter: 'M', field: 'services' },
  K: { letter: 'K', field: 'k' },
  S: { letter: 'S', field: 'k' },
  min: { letter: 'min', field: 'minutes' },
  c: { letter: 'c', field: 'concurrency' },
  J: { letter: 'J', field: 'k' },
  newS: { letter: 'S', field: 'newServices' },
  rps: { letter: 'rps', field: 'cloudRps' },
  S2: { letter: 'S', field: 'services' },
  G: { letter: 'G', field: 'groups' },
} as const satisfies Record<string, SizeField>;

/** A driver's result when every named object's latency counts from the CCM's spawn (W1, W4, W5). */
export function fromSpawn(
  spawnedAtMs: number,
  convergedAt: ReadonlyMap<string, number>,
  names: readonly string[],
): Measured {
  const at = names.map((n) => convergedAt.get(n)!);
  return { startMs: spawnedAtMs, endMs: Math.max(...at), latenciesMs: at.map((t) => t - spawnedAtMs), extra: {} };
}

export const range = (n: number, from = 0): number[] => Array.from({ length: n }, (_, i) => from + i);

/** Route-controller flags (W4, W6, W7): node CIDRs in the benchmark Nodes' 10.64.0.0/10. */
export const ROUTE_FLAGS = [
  '--allocate-node-cidrs=true',
  '--configure-cloud-routes=true',
  '--cluster-cidr=10.64.0.0/10',
];
/** Every controller a vendor's CCM runs by default (W6, W7). */
export const ALL_CONTROLLERS =
  'cloud-node-controller,cloud-node-lifecycle-controller,service-lb-controller,node-route-controller';

/** Generous: `perObject` requests per object at the client QPS, twice, plus 2 minutes. */
export const qpsTimeout = (objects: number, qps: number, perObject = 4): number =>
  120_000 + ((perObject * objects) / Math.max(qps, 1)) * 1000 * 2;
