import { getCloudProvider, isCloudProvider, unregisterCloudProvider } from '@ccm-kit/cloud-provider';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MockCloudApiServer } from '../src/api-server/index.js';
import {
  ConfigError,
  createMockCloudProvider,
  formatConfig,
  MockCloudProvider,
  maskConfig,
  parseConfig,
  register,
} from '../src/index.js';
import { RecordingLogger } from '@ccm-kit/testing';
import { startApi, TOKEN } from './helpers.js';

const BASE = 'apiURL: https://api.example/v1\ntoken: s3cret\nclusterID: c1\n';

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('config', () => {
  it('fills in defaults', () => {
    expect(parseConfig(BASE, {})).toEqual({
      apiURL: 'https://api.example/v1',
      token: 's3cret',
      clusterID: 'c1',
      requestTimeoutMs: 15_000,
      concurrency: 8,
      retry: { retries: 5, minDelayMs: 250, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 },
      instancesCacheMaxAgeMs: 30_000,
      verifyCredentialsOnStart: true,
      loadBalancer: { provisioningRetryMs: 5_000, healthCheckIntervalSeconds: 5, groupBy: 'none' },
      tagger: { periodMs: 60_000 },
    });
  });

  it('reads every file key', () => {
    const c = parseConfig(
      `${BASE}requestTimeoutMs: 1000\nconcurrency: 2\nretry: { retries: 0, minDelayMs: 10, maxDelayMs: 20, maxRetryAfterMs: 0 }\n` +
        'instancesCacheMaxAgeMs: 0\nverifyCredentialsOnStart: false\nloadBalancer: { provisioningRetryMs: 100, healthCheckIntervalSeconds: 2, groupBy: namespace }\n' +
        'tagger: { periodMs: 5000 }\n',
      {},
    );
    expect(c).toMatchObject({
      requestTimeoutMs: 1000,
      concurrency: 2,
      retry: { retries: 0, minDelayMs: 10, maxDelayMs: 20, maxRetryAfterMs: 0 },
      instancesCacheMaxAgeMs: 0,
      verifyCredentialsOnStart: false,
      loadBalancer: { provisioningRetryMs: 100, healthCheckIntervalSeconds: 2, groupBy: 'namespace' },
      tagger: { periodMs: 5000 },
    });
  });

  it('names loadBalancer.groupBy and its values when it is neither none nor namespace', () => {
    expect(() => parseConfig(`${BASE}loadBalancer: { groupBy: label }\n`, {})).toThrow(
      /cloud-config: loadBalancer.groupBy must be none or namespace, got "label"/,
    );
  });

  it('works from the environment alone, and the environment wins over the file', () => {
    const env = {
      MOCKCLOUD_API_URL: 'http://127.0.0.1:9/v1',
      MOCKCLOUD_TOKEN_FILE: '/run/secrets/token',
      MOCKCLOUD_CLUSTER_ID: 'from-env',
      MOCKCLOUD_REQUEST_TIMEOUT_MS: '500',
      MOCKCLOUD_CONCURRENCY: '3',
      MOCKCLOUD_RETRIES: '1',
      MOCKCLOUD_INSTANCES_CACHE_MAX_AGE_MS: '0',
    };
    expect(parseConfig(undefined, env)).toMatchObject({
      apiURL: 'http://127.0.0.1:9/v1',
      tokenFile: '/run/secrets/token',
      clusterID: 'from-env',
      requestTimeoutMs: 500,
      concurrency: 3,
      retry: { retries: 1 },
      instancesCacheMaxAgeMs: 0,
    });
    const c = parseConfig(BASE, env);
    expect(c.apiURL).toBe('http://127.0.0.1:9/v1');
    expect(c.clusterID).toBe('from-env');
    // A token from the environment replaces the file's token keys.
    expect(c.token).toBeUndefined();
    expect(c.tokenFile).toBe('/run/secrets/token');
  });

  it('reports every problem at once, each naming its field', () => {
    const problems = problemsOf(() =>
      parseConfig('tokn: x\nconcurrency: 0\nretry: { retries: -1, minDelay: 5 }\nloadBalancer: 3\n', {
        MOCKCLOUD_REQUEST_TIMEOUT_MS: 'soon',
      }),
    );
    expect(problems).toEqual([
      'cloud-config: unknown key "tokn"',
      'cloud-config: unknown key "retry.minDelay"',
      'cloud-config: loadBalancer must be a mapping',
      'apiURL is required (cloud-config apiURL or MOCKCLOUD_API_URL)',
      'a token is required (MOCKCLOUD_TOKEN, MOCKCLOUD_TOKEN_FILE, or cloud-config token/tokenFile)',
      'clusterID is required (cloud-config clusterID or MOCKCLOUD_CLUSTER_ID)',
      'MOCKCLOUD_REQUEST_TIMEOUT_MS must be an integer >= 1, got "soon"',
      'cloud-config: concurrency must be an integer >= 1, got 0',
      'cloud-config: retry.retries must be an integer >= 0, got -1',
    ]);
    const err = (() => {
      try {
        parseConfig('', {});
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err?.message).toMatch(/^mockcloud: invalid configuration:\n {2}- apiURL is required/);
  });

  it('rejects a bad URL, two token sources, a bad cluster ID, crossed delays and bad YAML', () => {
    expect(
      problemsOf(() =>
        parseConfig(
          'apiURL: ftp://x\ntoken: a\ntokenFile: /b\nclusterID: "not a label!"\nretry: { minDelayMs: 50, maxDelayMs: 10 }\n',
          {},
        ),
      ),
    ).toEqual([
      'apiURL "ftp://x" must be http or https',
      'cloud-config: set only one of token and tokenFile',
      expect.stringMatching(/^clusterID: invalid label value "not a label!"/),
      'cloud-config: retry.minDelayMs must not exceed retry.maxDelayMs',
    ]);
    expect(problemsOf(() => parseConfig(BASE, { MOCKCLOUD_TOKEN: 'a', MOCKCLOUD_TOKEN_FILE: '/b' }))).toEqual([
      'set only one of MOCKCLOUD_TOKEN and MOCKCLOUD_TOKEN_FILE',
    ]);
  });

  it('stops at a cloud-config that is not a YAML mapping, without adding problems that follow from it', () => {
    expect(problemsOf(() => parseConfig('apiURL: [', {}))).toEqual([
      expect.stringMatching(/^cloud-config is not valid YAML/),
    ]);
    expect(problemsOf(() => parseConfig('- a\n- b\n', {}))).toEqual(['cloud-config must be a YAML mapping']);
  });

  it('masks the token when printed', () => {
    const c = parseConfig(BASE, {});
    expect(maskConfig(c).token).toBe('***');
    expect(c.token).toBe('s3cret');
    expect(formatConfig(c)).not.toContain('s3cret');
    expect(formatConfig(c)).toContain('"token":"***"');
  });

  it('masks credentials in apiURL when printed and in configuration errors (regression)', () => {
    const c = { ...parseConfig(BASE, {}), apiURL: 'https://admin:hunter2@api.example/v1' };
    expect(maskConfig(c).apiURL).toBe('https://***@api.example/v1');
    expect(formatConfig(c)).not.toContain('hunter2');
    // fetch cannot send them anyway: a URL with credentials is refused, without echoing them.
    expect(
      problemsOf(() => parseConfig('apiURL: https://admin:hunter2@api.example/v1\ntoken: s3cret\nclusterID: c1\n', {})),
    ).toEqual(['apiURL "https://***@api.example/v1" must not contain credentials; give the token instead']);
    const problems = problemsOf(() =>
      parseConfig('clusterID: c1\ntoken: t\n', { MOCKCLOUD_API_URL: 'ftp://admin:hunter2@x/' }),
    );
    expect(problems).toEqual([
      'apiURL "ftp://***@x/" must be http or https',
      'apiURL "ftp://***@x/" must not contain credentials; give the token instead',
    ]);
    const unparsable = problemsOf(() =>
      parseConfig('clusterID: c1\ntoken: t\n', { MOCKCLOUD_API_URL: 'http://admin:hunter2@[::1' }),
    );
    expect(unparsable.join('\n')).not.toContain('hunter2');
  });
});

describe('createMockCloudProvider', () => {
  let api: MockCloudApiServer;
  beforeEach(async () => {
    api = await startApi();
  });
  afterEach(async () => {
    await api.close();
  });

  it('checks the token and logs the configuration with the token masked', async () => {
    const logger = new RecordingLogger();
    const p = await createMockCloudProvider(
      `apiURL: ${api.url}\nclusterID: c1\n`,
      { MOCKCLOUD_TOKEN: TOKEN },
      { logger },
    );
    expect(p.providerName()).toBe('mockcloud');
    expect(p.hasClusterID()).toBe(true);
    expect(api.requests()).toHaveLength(1);
    const line = logger.records.find((l) => l.msg === 'mockcloud configuration')!;
    expect(JSON.stringify(line.fields)).toContain('"token":"***"');
    expect(JSON.stringify(logger.records)).not.toContain(TOKEN);
  });

  it('fails start-up with a clear message when the API rejects the token', async () => {
    await expect(
      createMockCloudProvider(
        `apiURL: ${api.url}\nclusterID: c1\ntoken: wrong\n`,
        {},
        { logger: new RecordingLogger() },
      ),
    ).rejects.toThrow(`mockcloud: the API at ${api.url} rejected the token`);
  });

  it('skips the check with verifyCredentialsOnStart: false', async () => {
    const p = await createMockCloudProvider(
      `apiURL: ${api.url}\nclusterID: c1\ntoken: wrong\nverifyCredentialsOnStart: false\n`,
      {},
      { logger: new RecordingLogger() },
    );
    expect(p.providerName()).toBe('mockcloud');
    expect(api.requests()).toHaveLength(0);
  });

  it('registers as "mockcloud" and builds the provider from the cloud-config text', async () => {
    register();
    try {
      expect(isCloudProvider('mockcloud')).toBe(true);
      const cloud = await getCloudProvider('mockcloud', `apiURL: ${api.url}\nclusterID: c1\ntoken: ${TOKEN}\n`);
      expect(cloud).toBeInstanceOf(MockCloudProvider);
      expect(api.requests()).toHaveLength(1);
    } finally {
      unregisterCloudProvider('mockcloud');
    }
  });

  it('rejects a bad config before any API call', async () => {
    await expect(createMockCloudProvider('clusterID: c1\n', {})).rejects.toBeInstanceOf(ConfigError);
    expect(api.requests()).toHaveLength(0);
  });
});
