/**
 * The mockcloud provider's configuration: an optional `--cloud-config` YAML file, overridden by
 * environment variables (so a Secret can supply the token). Every problem is reported at once
 * (Hetzner's practice) and neither the token nor credentials in `apiURL` appear in printed output or errors
 * (Equinix's practice).
 *
 * cloud-config (all keys optional except where noted; durations in ms):
 * ```yaml
 * apiURL: https://api.mockcloud.example/v1   # required (or MOCKCLOUD_API_URL)
 * tokenFile: /etc/mockcloud/token            # or token: ..., or MOCKCLOUD_TOKEN / MOCKCLOUD_TOKEN_FILE; required
 * clusterID: prod-eu-1                       # required (or MOCKCLOUD_CLUSTER_ID); a label value
 * requestTimeoutMs: 15000
 * concurrency: 8
 * retry: { retries: 5, minDelayMs: 250, maxDelayMs: 10000, maxRetryAfterMs: 60000 }
 * instancesCacheMaxAgeMs: 30000
 * verifyCredentialsOnStart: true
 * loadBalancer: { provisioningRetryMs: 5000, healthCheckIntervalSeconds: 5, groupBy: none }   # groupBy: none | namespace
 * tagger: { periodMs: 60000 }
 * ```
 * Environment (wins over the file): `MOCKCLOUD_API_URL`, `MOCKCLOUD_TOKEN`, `MOCKCLOUD_TOKEN_FILE`,
 * `MOCKCLOUD_CLUSTER_ID`, `MOCKCLOUD_REQUEST_TIMEOUT_MS`, `MOCKCLOUD_CONCURRENCY`, `MOCKCLOUD_RETRIES`,
 * `MOCKCLOUD_INSTANCES_CACHE_MAX_AGE_MS`. A token from the environment replaces both token keys of the file.
 */
import { parse } from 'yaml';
import { redactURL } from '../client/redact.js';
import { labelValueProblem } from '../shared/labels.js';

/** Retry settings of the API client. Durations in ms. */
export interface MockCloudRetryConfig {
  retries: number;
  minDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
}

/** The validated configuration. */
export interface MockCloudConfig {
  /** Base URL of the API, http or https. */
  apiURL: string;
  /** The API token; exactly one of `token` and `tokenFile` is set. */
  token?: string;
  /** A file holding the token, re-read every minute (rotation). */
  tokenFile?: string;
  /** Identifies this cluster's cloud resources (a label value on load balancers and servers). */
  clusterID: string;
  /** Per-request timeout in ms (default 15000). */
  requestTimeoutMs: number;
  /** API requests in flight at once (default 8). */
  concurrency: number;
  retry: MockCloudRetryConfig;
  /** How old the list-all server snapshot may be, in ms (default 30000; 0 lists on every lookup). */
  instancesCacheMaxAgeMs: number;
  /** Check the token with one API call when the provider is created (default true). */
  verifyCredentialsOnStart: boolean;
  loadBalancer: {
    /** Requeue delay while a load balancer is provisioning, in ms (default 5000). */
    provisioningRetryMs: number;
    /** Health-check interval of created load balancers, in seconds (default 5). */
    healthCheckIntervalSeconds: number;
    /**
     * `namespace`: the Services of one namespace form one load-balancer group (`LoadBalancer.loadBalancerGroup`),
     * so ccm-kit never calls the cloud for two of them at once; `none` (default): no groups, as upstream.
     */
    groupBy: 'none' | 'namespace';
  };
  tagger: {
    /** Period of the tagger controller's full pass, in ms (default 60000). */
    periodMs: number;
  };
}

/** Thrown by {@link parseConfig}; `problems` lists every problem found, each naming its field. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`mockcloud: invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const DEFAULTS = {
  requestTimeoutMs: 15_000,
  concurrency: 8,
  retry: { retries: 5, minDelayMs: 250, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 },
  instancesCacheMaxAgeMs: 30_000,
  verifyCredentialsOnStart: true,
  loadBalancer: { provisioningRetryMs: 5_000, healthCheckIntervalSeconds: 5, groupBy: 'none' },
  tagger: { periodMs: 60_000 },
} as const;

const TOP_KEYS = new Set([
  'apiURL',
  'token',
  'tokenFile',
  'clusterID',
  'requestTimeoutMs',
  'concurrency',
  'retry',
  'instancesCacheMaxAgeMs',
  'verifyCredentialsOnStart',
  'loadBalancer',
  'tagger',
]);
const NESTED_KEYS: Record<string, Set<string>> = {
  retry: new Set(Object.keys(DEFAULTS.retry)),
  loadBalancer: new Set(Object.keys(DEFAULTS.loadBalancer)),
  tagger: new Set(Object.keys(DEFAULTS.tagger)),
};

type Raw = Record<string, unknown>;

function isObject(v: unknown): v is Raw {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads one number from env (string) or file (number); records a problem naming `source` when invalid. */
function num(
  problems: string[],
  source: string,
  value: unknown,
  fallback: number,
  check: { min: number; integer?: boolean },
): number {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'string' ? Number(value.trim()) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < check.min || (check.integer && !Number.isInteger(n))) {
    problems.push(
      `${source} must be ${check.integer ? 'an integer' : 'a number'} >= ${check.min}, got ${JSON.stringify(value)}`,
    );
    return fallback;
  }
  return n;
}

function str(problems: string[], source: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    problems.push(`${source} must be a string`);
    return undefined;
  }
  return value.trim() === '' ? undefined : value.trim();
}

/**
 * Builds the configuration from the `--cloud-config` text (YAML, may be absent) and the environment.
 * @throws ConfigError listing every problem (unknown keys, missing required values, bad numbers, a bad URL), or
 *   only the one that the text is not a YAML mapping.
 */
export function parseConfig(text: string | undefined, env: NodeJS.ProcessEnv = process.env): MockCloudConfig {
  const problems: string[] = [];
  let file: Raw = {};
  if (text !== undefined && text.trim() !== '') {
    try {
      const doc: unknown = parse(text);
      if (doc === null || doc === undefined) file = {};
      else if (isObject(doc)) file = doc;
      else throw new ConfigError(['cloud-config must be a YAML mapping']);
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      // Nothing below can be checked without the file: stop here rather than report what follows from it.
      throw new ConfigError([`cloud-config is not valid YAML: ${(err as Error).message.split('\n')[0]}`]);
    }
  }
  for (const key of Object.keys(file)) {
    if (!TOP_KEYS.has(key)) problems.push(`cloud-config: unknown key "${key}"`);
  }
  const section = (name: string): Raw => {
    const v = file[name];
    if (v === undefined || v === null) return {};
    if (!isObject(v)) {
      problems.push(`cloud-config: ${name} must be a mapping`);
      return {};
    }
    for (const key of Object.keys(v)) {
      if (!NESTED_KEYS[name]!.has(key)) problems.push(`cloud-config: unknown key "${name}.${key}"`);
    }
    return v;
  };
  const retry = section('retry');
  const lb = section('loadBalancer');
  const tagger = section('tagger');

  const apiURL =
    str(problems, 'MOCKCLOUD_API_URL', env.MOCKCLOUD_API_URL) ?? str(problems, 'cloud-config: apiURL', file.apiURL);
  if (apiURL === undefined) problems.push('apiURL is required (cloud-config apiURL or MOCKCLOUD_API_URL)');
  else {
    let url: URL | undefined;
    try {
      url = new URL(apiURL);
    } catch {
      problems.push(`apiURL "${redactURL(apiURL)}" is not a URL`);
    }
    if (url && url.protocol !== 'http:' && url.protocol !== 'https:')
      problems.push(`apiURL "${redactURL(apiURL)}" must be http or https`);
    if (url && (url.username !== '' || url.password !== ''))
      problems.push(`apiURL "${redactURL(apiURL)}" must not contain credentials; give the token instead`);
  }

  const envToken = str(problems, 'MOCKCLOUD_TOKEN', env.MOCKCLOUD_TOKEN);
  const envTokenFile = str(problems, 'MOCKCLOUD_TOKEN_FILE', env.MOCKCLOUD_TOKEN_FILE);
  const fromEnv = envToken !== undefined || envTokenFile !== undefined;
  const token = fromEnv ? envToken : str(problems, 'cloud-config: token', file.token);
  const tokenFile = fromEnv ? envTokenFile : str(problems, 'cloud-config: tokenFile', file.tokenFile);
  if (token !== undefined && tokenFile !== undefined) {
    problems.push(
      fromEnv
        ? 'set only one of MOCKCLOUD_TOKEN and MOCKCLOUD_TOKEN_FILE'
        : 'cloud-config: set only one of token and tokenFile',
    );
  }
  if (token === undefined && tokenFile === undefined) {
    problems.push('a token is required (MOCKCLOUD_TOKEN, MOCKCLOUD_TOKEN_FILE, or cloud-config token/tokenFile)');
  }

  const clusterID =
    str(problems, 'MOCKCLOUD_CLUSTER_ID', env.MOCKCLOUD_CLUSTER_ID) ??
    str(problems, 'cloud-config: clusterID', file.clusterID);
  if (clusterID === undefined) problems.push('clusterID is required (cloud-config clusterID or MOCKCLOUD_CLUSTER_ID)');
  else {
    const p = labelValueProblem(clusterID);
    if (p) problems.push(`clusterID: ${p}`);
  }

  const pick = (envName: string, fileSource: string, fileValue: unknown, fallback: number, min: number) =>
    env[envName] !== undefined && env[envName] !== ''
      ? num(problems, envName, env[envName], fallback, { min, integer: true })
      : num(problems, `cloud-config: ${fileSource}`, fileValue, fallback, { min, integer: true });

  const config: MockCloudConfig = {
    apiURL: apiURL ?? '',
    clusterID: clusterID ?? '',
    requestTimeoutMs: pick(
      'MOCKCLOUD_REQUEST_TIMEOUT_MS',
      'requestTimeoutMs',
      file.requestTimeoutMs,
      DEFAULTS.requestTimeoutMs,
      1,
    ),
    concurrency: pick('MOCKCLOUD_CONCURRENCY', 'concurrency', file.concurrency, DEFAULTS.concurrency, 1),
    retry: {
      retries: pick('MOCKCLOUD_RETRIES', 'retry.retries', retry.retries, DEFAULTS.retry.retries, 0),
      minDelayMs: num(problems, 'cloud-config: retry.minDelayMs', retry.minDelayMs, DEFAULTS.retry.minDelayMs, {
        min: 1,
        integer: true,
      }),
      maxDelayMs: num(problems, 'cloud-config: retry.maxDelayMs', retry.maxDelayMs, DEFAULTS.retry.maxDelayMs, {
        min: 1,
        integer: true,
      }),
      maxRetryAfterMs: num(
        problems,
        'cloud-config: retry.maxRetryAfterMs',
        retry.maxRetryAfterMs,
        DEFAULTS.retry.maxRetryAfterMs,
        {
          min: 0,
          integer: true,
        },
      ),
    },
    instancesCacheMaxAgeMs: pick(
      'MOCKCLOUD_INSTANCES_CACHE_MAX_AGE_MS',
      'instancesCacheMaxAgeMs',
      file.instancesCacheMaxAgeMs,
      DEFAULTS.instancesCacheMaxAgeMs,
      0,
    ),
    verifyCredentialsOnStart: DEFAULTS.verifyCredentialsOnStart,
    loadBalancer: {
      provisioningRetryMs: num(
        problems,
        'cloud-config: loadBalancer.provisioningRetryMs',
        lb.provisioningRetryMs,
        DEFAULTS.loadBalancer.provisioningRetryMs,
        { min: 1, integer: true },
      ),
      healthCheckIntervalSeconds: num(
        problems,
        'cloud-config: loadBalancer.healthCheckIntervalSeconds',
        lb.healthCheckIntervalSeconds,
        DEFAULTS.loadBalancer.healthCheckIntervalSeconds,
        { min: 1, integer: true },
      ),
      groupBy: DEFAULTS.loadBalancer.groupBy,
    },
    tagger: {
      periodMs: num(problems, 'cloud-config: tagger.periodMs', tagger.periodMs, DEFAULTS.tagger.periodMs, {
        min: 1000,
        integer: true,
      }),
    },
  };
  if (file.verifyCredentialsOnStart !== undefined) {
    if (typeof file.verifyCredentialsOnStart !== 'boolean') {
      problems.push('cloud-config: verifyCredentialsOnStart must be true or false');
    } else config.verifyCredentialsOnStart = file.verifyCredentialsOnStart;
  }
  if (lb.groupBy !== undefined && lb.groupBy !== null) {
    if (lb.groupBy !== 'none' && lb.groupBy !== 'namespace') {
      problems.push(`cloud-config: loadBalancer.groupBy must be none or namespace, got ${JSON.stringify(lb.groupBy)}`);
    } else config.loadBalancer.groupBy = lb.groupBy;
  }
  if (config.retry.minDelayMs > config.retry.maxDelayMs) {
    problems.push('cloud-config: retry.minDelayMs must not exceed retry.maxDelayMs');
  }
  if (token !== undefined) config.token = token;
  if (tokenFile !== undefined) config.tokenFile = tokenFile;
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * A copy of the configuration that is safe to print: the token is replaced with `***`, and so are credentials
 * in `apiURL` (`https://user:secret@host/` → `https://***@host/`).
 */
export function maskConfig(config: MockCloudConfig): MockCloudConfig {
  const copy = structuredClone(config);
  if (copy.token !== undefined) copy.token = '***';
  copy.apiURL = redactURL(copy.apiURL);
  return copy;
}

/** The configuration as one line of JSON, token and URL credentials masked. */
export function formatConfig(config: MockCloudConfig): string {
  return JSON.stringify(maskConfig(config));
}
