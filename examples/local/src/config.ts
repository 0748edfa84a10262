/**
 * The `--cloud-config` file of the local provider (YAML or JSON):
 *
 * ```yaml
 * clusterID: demo                 # optional; hasClusterID() is true when set
 * inventory: /etc/local-cloud/inventory.yaml   # required; relative paths are from the working directory
 * inventoryPollInterval: 2s       # stat fallback of the file watch (default 2s)
 * dataPlane: proxy                # proxy (TCP proxies on the LB IPs) | none (IP allocation only); default proxy
 * healthCheckInterval: 5s         # default backend health-check period (100ms..1h; default 5s)
 * connectTimeout: 5s              # default proxy connect timeout to a backend (100ms..5m; default 5s)
 * drainTimeout: 5s                # time open connections get when a listener stops (0..5m; default 5s)
 * udpIdleTimeout: 1m              # a UDP flow with no datagram for this long is closed (100ms..1h; default 1m)
 * pools:
 *   - name: global                # the fallback pool of namespaces that have none of their own
 *     addresses: [127.0.2.0/24, "fd00:2::/120"]
 *   - name: team-a
 *     namespaces: [team-a]        # only Services in these namespaces may use it; it is also their default
 *     addresses: [127.0.3.10-127.0.3.20]
 * ```
 *
 * Validation collects every problem and reports them together, each naming its field.
 */
import { parse } from 'yaml';
import { parseDurationMs } from './duration.js';
import { formatSpan, type IPSpan, parseSpan, spansOverlap } from './ip.js';

/** How load balancers are realised. */
export type DataPlaneMode = 'proxy' | 'none';

/** A validated pool of load-balancer addresses. */
export interface PoolConfig {
  /** Unique name; `global` is the fallback pool. Selected per Service with `local.ccm-kit.io/pool`. */
  readonly name: string;
  /** The pool's addresses (IPv4 and/or IPv6), in the order given. */
  readonly spans: readonly IPSpan[];
  /** The entries as written, for messages. */
  readonly addresses: readonly string[];
  /** Namespaces allowed to use the pool (and defaulting to it); `undefined` means every namespace may select it. */
  readonly namespaces?: readonly string[];
}

/** The validated configuration. Durations in milliseconds. */
export interface LocalConfig {
  readonly clusterID: string;
  /** Path of the inventory file. */
  readonly inventory: string;
  readonly inventoryPollIntervalMs: number;
  readonly dataPlane: DataPlaneMode;
  readonly healthCheckIntervalMs: number;
  readonly connectTimeoutMs: number;
  readonly drainTimeoutMs: number;
  readonly udpIdleTimeoutMs: number;
  readonly pools: readonly PoolConfig[];
}

/** The name of the fallback pool. */
export const GLOBAL_POOL = 'global';

/** Bounds of the duration settings, in milliseconds (also used for the annotations). */
export const LIMITS = {
  healthCheckIntervalMs: { min: 100, max: 3_600_000 },
  connectTimeoutMs: { min: 100, max: 300_000 },
  drainTimeoutMs: { min: 0, max: 300_000 },
  udpIdleTimeoutMs: { min: 100, max: 3_600_000 },
  inventoryPollIntervalMs: { min: 100, max: 3_600_000 },
} as const;

/** The configuration is invalid; {@link ConfigError.problems} lists every problem found. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`local: invalid cloud-config:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const KNOWN_FIELDS = new Set([
  'clusterID',
  'inventory',
  'inventoryPollInterval',
  'dataPlane',
  'healthCheckInterval',
  'connectTimeout',
  'drainTimeout',
  'udpIdleTimeout',
  'pools',
]);
const POOL_FIELDS = new Set(['name', 'addresses', 'namespaces']);
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * Reads a duration field (`"5s"`), checks its bounds, and returns milliseconds; problems go to `problems`.
 */
function durationField(
  raw: Record<string, unknown>,
  field: string,
  fallbackMs: number,
  limits: { min: number; max: number },
  problems: string[],
): number {
  const v = raw[field];
  if (v === undefined || v === null) return fallbackMs;
  if (typeof v !== 'string') {
    problems.push(`${field}: must be a duration string such as "5s" or "500ms", got ${JSON.stringify(v)}`);
    return fallbackMs;
  }
  try {
    const ms = parseDurationMs(v);
    if (ms < limits.min || ms > limits.max) {
      problems.push(`${field}: ${v} is out of range (${limits.min}ms..${limits.max}ms)`);
      return fallbackMs;
    }
    return ms;
  } catch (err) {
    problems.push(`${field}: ${(err as Error).message}`);
    return fallbackMs;
  }
}

function parsePools(value: unknown, problems: string[]): PoolConfig[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.push('pools: must be a list of { name, addresses, namespaces? }');
    return [];
  }
  const pools: PoolConfig[] = [];
  const names = new Set<string>();
  const namespaceOwner = new Map<string, string>();
  value.forEach((raw, i) => {
    const at = `pools[${i}]`;
    if (!isRecord(raw)) {
      problems.push(`${at}: must be a mapping with name and addresses`);
      return;
    }
    for (const k of Object.keys(raw)) if (!POOL_FIELDS.has(k)) problems.push(`${at}.${k}: unknown field`);
    const name = raw.name;
    if (typeof name !== 'string' || !DNS_LABEL.test(name)) {
      problems.push(`${at}.name: must be a DNS label (lower-case letters, digits, "-"), got ${JSON.stringify(name)}`);
      return;
    }
    if (names.has(name)) problems.push(`${at}.name: duplicate pool name "${name}"`);
    names.add(name);
    const spans: IPSpan[] = [];
    const addresses: string[] = [];
    if (!Array.isArray(raw.addresses) || raw.addresses.length === 0) {
      problems.push(`${at}.addresses: must be a non-empty list of CIDRs, ranges (a-b) or addresses`);
    } else {
      raw.addresses.forEach((a, j) => {
        if (typeof a !== 'string') {
          problems.push(`${at}.addresses[${j}]: must be a string, got ${JSON.stringify(a)}`);
          return;
        }
        try {
          spans.push(parseSpan(a));
          addresses.push(a.trim());
        } catch (err) {
          problems.push(`${at}.addresses[${j}]: ${(err as Error).message}`);
        }
      });
    }
    let namespaces: string[] | undefined;
    if (raw.namespaces !== undefined) {
      if (!Array.isArray(raw.namespaces) || raw.namespaces.some((n) => typeof n !== 'string' || !DNS_LABEL.test(n))) {
        problems.push(`${at}.namespaces: must be a list of namespace names`);
      } else {
        namespaces = raw.namespaces as string[];
        if (name === GLOBAL_POOL) problems.push(`${at}.namespaces: the "global" pool serves every namespace`);
        for (const ns of namespaces) {
          const owner = namespaceOwner.get(ns);
          if (owner !== undefined)
            problems.push(`${at}.namespaces: namespace "${ns}" is already served by pool "${owner}"`);
          else namespaceOwner.set(ns, name);
        }
      }
    }
    pools.push({ name, spans, addresses, ...(namespaces ? { namespaces } : {}) });
  });
  // No address may belong to two entries, in one pool or across pools.
  const all = pools.flatMap((p) => p.spans.map((s) => ({ pool: p.name, span: s })));
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length; j++) {
      const a = all[i]!;
      const b = all[j]!;
      if (spansOverlap(a.span, b.span)) {
        problems.push(
          `pools: ${formatSpan(a.span)} (pool "${a.pool}") overlaps ${formatSpan(b.span)} (pool "${b.pool}")`,
        );
      }
    }
  }
  return pools;
}

/**
 * Parses and validates the cloud-config text.
 * @param text - the `--cloud-config` file's contents (YAML or JSON); `undefined` when no file was given.
 * @throws ConfigError listing every problem, each naming its field.
 */
export function parseConfig(text: string | undefined): LocalConfig {
  if (text === undefined || text.trim() === '') {
    throw new ConfigError(['--cloud-config is required: a YAML file with at least "inventory" (see the README)']);
  }
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (err) {
    throw new ConfigError([`the file is not valid YAML: ${(err as Error).message}`]);
  }
  if (!isRecord(raw)) throw new ConfigError(['the file must hold a mapping (key: value pairs)']);
  const problems: string[] = [];
  for (const k of Object.keys(raw)) if (!KNOWN_FIELDS.has(k)) problems.push(`${k}: unknown field`);

  let clusterID = '';
  if (raw.clusterID !== undefined && raw.clusterID !== null) {
    if (typeof raw.clusterID !== 'string') problems.push('clusterID: must be a string');
    else clusterID = raw.clusterID;
  }
  let inventory = '';
  if (typeof raw.inventory !== 'string' || raw.inventory.trim() === '') {
    problems.push('inventory: required, the path of the inventory file (YAML)');
  } else {
    inventory = raw.inventory.trim();
  }
  let dataPlane: DataPlaneMode = 'proxy';
  if (raw.dataPlane !== undefined && raw.dataPlane !== null) {
    if (raw.dataPlane === 'proxy' || raw.dataPlane === 'none') dataPlane = raw.dataPlane;
    else problems.push(`dataPlane: must be "proxy" or "none", got ${JSON.stringify(raw.dataPlane)}`);
  }
  const inventoryPollIntervalMs = durationField(
    raw,
    'inventoryPollInterval',
    2_000,
    LIMITS.inventoryPollIntervalMs,
    problems,
  );
  const healthCheckIntervalMs = durationField(
    raw,
    'healthCheckInterval',
    5_000,
    LIMITS.healthCheckIntervalMs,
    problems,
  );
  const connectTimeoutMs = durationField(raw, 'connectTimeout', 5_000, LIMITS.connectTimeoutMs, problems);
  const drainTimeoutMs = durationField(raw, 'drainTimeout', 5_000, LIMITS.drainTimeoutMs, problems);
  // Envoy's UDP proxy idle timeout (cloud-provider-kind's data plane) defaults to 1 minute as well.
  const udpIdleTimeoutMs = durationField(raw, 'udpIdleTimeout', 60_000, LIMITS.udpIdleTimeoutMs, problems);
  const pools = parsePools(raw.pools, problems);

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    clusterID,
    inventory,
    inventoryPollIntervalMs,
    dataPlane,
    healthCheckIntervalMs,
    connectTimeoutMs,
    drainTimeoutMs,
    udpIdleTimeoutMs,
    pools,
  };
}

/**
 * The pool a Service in `namespace` uses: the one named `requested` (when given and allowed), else the pool
 * listing the namespace, else the pool named `global`.
 * @throws Error naming the reason when there is no usable pool.
 */
export function selectPool(config: LocalConfig, namespace: string, requested?: string): PoolConfig {
  if (requested !== undefined) {
    const pool = config.pools.find((p) => p.name === requested);
    if (!pool) {
      const known = config.pools.map((p) => p.name).join(', ') || 'none';
      throw new Error(`pool "${requested}" does not exist (pools: ${known})`);
    }
    if (pool.namespaces && !pool.namespaces.includes(namespace)) {
      throw new Error(`pool "${requested}" is reserved for namespaces ${pool.namespaces.join(', ')}`);
    }
    return pool;
  }
  const own = config.pools.find((p) => p.namespaces?.includes(namespace));
  if (own) return own;
  const global = config.pools.find((p) => p.name === GLOBAL_POOL);
  if (global) return global;
  throw new Error(`no address pool for namespace "${namespace}": configure a pool named "global" or one listing it`);
}
