/**
 * The cloud-call guard against a real local HTTP server that answers 429 with Retry-After, 5xx, 4xx, slowly,
 * and checks a bearer token read from a file that is rotated during the test.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureLogs } from '@ccm-kit/testing';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CloudCallGuard,
  type CloudCallGuardOptions,
  CloudCallThrottledError,
  CloudCallTimeoutError,
  classifyCloudError,
  fileCredential,
  parseRetryAfter,
  staticCredential,
} from '../src/guard/index.js';

/** What the server answers next: a queue of scripted answers, then 200. */
type Answer = { status: number; retryAfter?: string; delayMs?: number };

let server: Server;
let base: string;
let script: Answer[];
let arrivals: { at: number; auth: string | undefined }[];
let validToken: string | undefined;
let registry: Registry;

function handler(req: IncomingMessage, res: ServerResponse): void {
  arrivals.push({ at: performance.now(), auth: req.headers.authorization });
  if (validToken !== undefined && req.headers.authorization !== `Bearer ${validToken}`) {
    res.writeHead(401).end('{"error":"unauthorized"}');
    return;
  }
  const next = script.shift() ?? { status: 200 };
  const send = () => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (next.retryAfter !== undefined) headers['retry-after'] = next.retryAfter;
    res.writeHead(next.status, headers).end(JSON.stringify({ n: arrivals.length }));
  };
  if (next.delayMs) setTimeout(send, next.delayMs).unref();
  else send();
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterMs?: number,
  ) {
    super(`HTTP ${status}`);
  }
}

/** A minimal vendor client call through the guard. */
function get(guard: CloudCallGuard, operation = 'get_thing', signal?: AbortSignal) {
  return guard.call(
    operation,
    async ({ signal: s, credential }) => {
      const res = await fetch(base, {
        signal: s,
        headers: credential ? { authorization: `Bearer ${credential}` } : {},
      });
      const body = (await res.json()) as { n: number };
      if (!res.ok) throw new HttpError(res.status, parseRetryAfter(res.headers.get('retry-after')));
      return body.n;
    },
    { signal },
  );
}

function guard(options: Partial<CloudCallGuardOptions> = {}): CloudCallGuard {
  return new CloudCallGuard({ provider: 'test', minDelayMs: 10, maxDelayMs: 20, registry, ...options });
}

async function metric(name: string, labels: Record<string, string>): Promise<number | undefined> {
  const m = registry.getSingleMetric(name);
  const values = (await m?.get())?.values ?? [];
  return values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
}

beforeEach(async () => {
  script = [];
  arrivals = [];
  validToken = undefined;
  registry = new Registry();
  server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/thing`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('CloudCallGuard', () => {
  it('absorbs a 429 storm, waiting at least Retry-After before the next attempt', async () => {
    script = [
      { status: 429, retryAfter: '1' },
      { status: 429, retryAfter: '1' },
    ];
    const g = guard();
    await expect(get(g)).resolves.toBe(3);
    expect(arrivals).toHaveLength(3);
    // The delays honoured Retry-After (1 s), not the 10–20 ms backoff.
    expect(arrivals[1]!.at - arrivals[0]!.at).toBeGreaterThanOrEqual(990);
    expect(arrivals[2]!.at - arrivals[1]!.at).toBeGreaterThanOrEqual(990);
    expect(await metric('cloudprovider_test_api_request_attempts_total', { result: 'throttled' })).toBe(2);
    expect(await metric('cloudprovider_test_api_request_attempts_total', { result: 'ok' })).toBe(1);
    expect(await metric('cloudprovider_test_api_request_errors', { class: 'throttled' })).toBeUndefined();
  });

  it('holds back every call of the guard while a Retry-After is pending', async () => {
    script = [{ status: 429, retryAfter: '1' }];
    const g = guard({ retries: 0 });
    await expect(get(g)).rejects.toThrow('HTTP 429');
    await expect(get(g, 'other_op')).resolves.toBe(2);
    expect(arrivals[1]!.at - arrivals[0]!.at).toBeGreaterThanOrEqual(990);
  });

  it('fails at once, without sending, when the cloud asks to wait longer than maxRetryAfterMs', async () => {
    script = [{ status: 429, retryAfter: '120' }];
    const g = guard({ maxRetryAfterMs: 5_000 });
    const err = await get(g).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(arrivals).toHaveLength(1);
    const next = await get(g).catch((e: unknown) => e);
    expect(next).toBeInstanceOf(CloudCallThrottledError);
    expect((next as CloudCallThrottledError).retryAfterMs).toBeGreaterThan(100_000);
    expect(classifyCloudError(next)).toBe('throttled');
    expect(arrivals).toHaveLength(1);
  });

  it('retries 5xx up to the retry limit, then throws the last error', async () => {
    script = [{ status: 500 }, { status: 502 }, { status: 503 }, { status: 500 }];
    const g = guard({ retries: 2 });
    await expect(get(g)).rejects.toThrow('HTTP 503');
    expect(arrivals).toHaveLength(3);
    expect(await metric('cloudprovider_test_api_request_errors', { request: 'get_thing', class: 'server' })).toBe(1);
    expect(await metric('cloudprovider_test_api_request_attempts_total', { result: 'server' })).toBe(3);
  });

  it('stops at once on a non-retryable error (4xx, 501)', async () => {
    script = [{ status: 400 }, { status: 501 }];
    const g = guard();
    await expect(get(g)).rejects.toThrow('HTTP 400');
    await expect(get(g)).rejects.toThrow('HTTP 501');
    expect(arrivals).toHaveLength(2);
  });

  it('times out a slow answer per attempt and retries it', async () => {
    script = [{ status: 200, delayMs: 2_000 }];
    const g = guard({ timeoutMs: 200, retries: 1 });
    await expect(get(g)).resolves.toBe(2);
    expect(arrivals).toHaveLength(2);
    expect(await metric('cloudprovider_test_api_request_attempts_total', { result: 'timeout' })).toBe(1);
  });

  it('throws CloudCallTimeoutError when every attempt is too slow', async () => {
    script = [
      { status: 200, delayMs: 2_000 },
      { status: 200, delayMs: 2_000 },
    ];
    const err = await get(guard({ timeoutMs: 100, retries: 1 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CloudCallTimeoutError);
    expect(arrivals).toHaveLength(2);
  });

  it("stops retrying and sending when the caller's signal aborts", async () => {
    script = [{ status: 503, retryAfter: '5' }];
    const g = guard();
    const ac = new AbortController();
    const call = get(g, 'get_thing', ac.signal);
    setTimeout(() => ac.abort(new Error('controller stopped')), 200);
    await expect(call).rejects.toThrow('controller stopped');
    expect(arrivals).toHaveLength(1);
    expect(await metric('cloudprovider_test_api_request_errors', { class: 'canceled' })).toBe(1);
  });

  it('limits the attempts in flight', async () => {
    script = Array.from({ length: 6 }, () => ({ status: 200, delayMs: 100 }));
    let inFlight = 0;
    let peak = 0;
    const g = guard({ concurrency: 2 });
    await Promise.all(
      Array.from({ length: 6 }, () =>
        g.call('slow', async ({ signal }) => {
          peak = Math.max(peak, ++inFlight);
          try {
            await fetch(base, { signal }).then((r) => r.text());
          } finally {
            inFlight--;
          }
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(arrivals).toHaveLength(6);
  });

  it('coalesces identical keyed reads in flight and caches the answer for its TTL', async () => {
    script = [{ status: 200, delayMs: 100 }];
    let now = 1_000;
    const g = guard({ now: () => now });
    const list = () =>
      g.call('list_things', async ({ signal }) => ((await (await fetch(base, { signal })).json()) as { n: number }).n, {
        key: 'all',
        cacheTtlMs: 30_000,
      });
    expect(await Promise.all([list(), list(), list()])).toEqual([1, 1, 1]);
    expect(await list()).toBe(1);
    expect(arrivals).toHaveLength(1);
    now += 30_001;
    expect(await list()).toBe(2);
    g.invalidate('list_things', 'all');
    expect(await list()).toBe(3);
    expect(await metric('cloudprovider_test_api_request_cache_hits_total', { request: 'list_things' })).toBe(3);
  });

  it('lets one caller of a shared keyed call give up without failing the others', async () => {
    script = [{ status: 200, delayMs: 300 }];
    const g = guard();
    const list = (signal?: AbortSignal) =>
      g.call(
        'list_things',
        async ({ signal: s }) => ((await (await fetch(base, { signal: s })).json()) as { n: number }).n,
        { key: 'all', signal },
      );
    const ac = new AbortController();
    const quitter = list(ac.signal);
    const stayer = list();
    setTimeout(() => ac.abort(new Error('gave up')), 50);
    await expect(quitter).rejects.toThrow('gave up');
    await expect(stayer).resolves.toBe(1);
    expect(arrivals).toHaveLength(1);
  });

  it('picks up a rotated token file after a 401, without a restart, and never logs it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'guard-'));
    const logs = captureLogs();
    try {
      const file = join(dir, 'token');
      await writeFile(file, 'old-secret-token\n');
      validToken = 'old-secret-token';
      const g = guard({ credentials: fileCredential(file, { ttlMs: 3_600_000 }) });
      await expect(get(g)).resolves.toBe(1);
      // The Secret is rotated: the cloud accepts only the new token; the file changes.
      validToken = 'new-secret-token';
      await writeFile(file, 'new-secret-token\n');
      await expect(get(g)).resolves.toBe(3);
      expect(arrivals.map((a) => a.auth)).toEqual([
        'Bearer old-secret-token',
        'Bearer old-secret-token',
        'Bearer new-secret-token',
      ]);
      expect(logs.lines.join('\n')).not.toMatch(/secret-token/);
      // A token that is still wrong after re-reading fails as auth, without a retry storm.
      validToken = 'another';
      await expect(get(g)).rejects.toThrow('HTTP 401');
      expect(arrivals).toHaveLength(4);
    } finally {
      logs.restore();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects bad options naming them', () => {
    expect(() => guard({ concurrency: 0 })).toThrow('guard: concurrency must be an integer >= 1');
    expect(() => guard({ provider: 'my-cloud' })).toThrow(/letters, digits and _/);
  });
});

describe('parseRetryAfter', () => {
  it('parses delay-seconds and HTTP-dates', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(' 0 ')).toBe(0);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(10_000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('2016-01-01'))).toBe(0);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});

describe('credential providers', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'guard-credential-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('re-reads the file after the TTL', async () => {
    let now = 0;
    const file = join(dir, 'token');
    await writeFile(file, 'one');
    const source = fileCredential(file, { ttlMs: 1000, now: () => now });
    expect(await source.credential()).toBe('one');
    await writeFile(file, 'two');
    now = 999;
    expect(await source.credential()).toBe('one');
    now = 1000;
    expect(await source.credential()).toBe('two');
  });

  it('names the file (never its content) when it is missing or empty', async () => {
    await expect(fileCredential(join(dir, 'absent')).credential()).rejects.toThrow(
      /cannot read the credential file .*absent/,
    );
    await writeFile(join(dir, 'empty'), '  \n');
    await expect(fileCredential(join(dir, 'empty')).credential()).rejects.toThrow(/credential file .*empty is empty/);
    expect(() => staticCredential('', 'mockcloud API token')).toThrow('the mockcloud API token is empty');
  });
});
