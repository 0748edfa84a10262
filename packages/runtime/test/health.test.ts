import { HealthChecks, pingCheck } from '@ccm-kit/runtime/health';
import { afterEach, describe, expect, it, vi } from 'vitest';

const text = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' };

describe('HealthChecks', () => {
  afterEach(() => vi.useRealTimers());

  it('passes with the ping check: plain "ok", verbose lists each check', async () => {
    const h = new HealthChecks();
    expect(h.names('healthz')).toEqual(['ping']);
    expect(await h.handle('/healthz')).toEqual({ status: 200, body: 'ok', headers: text });
    expect(await h.handle('/livez', 'verbose')).toEqual({
      status: 200,
      body: '[+]ping ok\nlivez check passed\n',
      headers: text,
    });
    expect((await h.handle('/readyz?verbose=false'))?.body).toBe('[+]ping ok\nreadyz check passed\n');
    await expect(Promise.resolve(pingCheck())).resolves.toBeUndefined();
  });

  it('fails with 500 and withholds the reason, always verbosely', async () => {
    const h = new HealthChecks();
    h.add('leaderElection', () => {
      throw new Error('lease lost');
    });
    h.add('informers', async () => {});
    const res = await h.handle('/healthz');
    expect(res).toEqual({
      status: 500,
      body: '[+]ping ok\n[-]leaderElection failed: reason withheld\n[+]informers ok\nhealthz check failed\n',
      headers: text,
    });
    expect(res?.body).not.toContain('lease lost');
    const failed = await h.evaluate('healthz');
    expect([...failed.keys()]).toEqual(['leaderElection']);
    expect((failed.get('leaderElection') as Error).message).toBe('lease lost');
  });

  it('serves one check under /<endpoint>/<name>, with its reason', async () => {
    const h = new HealthChecks();
    h.add('cloud', () => Promise.reject(new Error('cloud API unreachable')));
    expect(await h.handle('/readyz/ping')).toEqual({ status: 200, body: 'ok', headers: text });
    expect(await h.handle('/readyz/cloud')).toEqual({
      status: 500,
      body: 'internal server error: cloud API unreachable\n',
      headers: text,
    });
    expect((await h.handle('/readyz/nope'))?.status).toBe(404);
    expect((await h.handle('/readyz/nope'))?.body).toBe('404 page not found\n');
    expect(await h.handle('/metrics')).toBeUndefined();
    expect(await h.handle('/healthzz')).toBeUndefined();
  });

  it('registers checks on chosen endpoints only', async () => {
    const h = new HealthChecks();
    h.add(
      'informer-sync',
      () => {
        throw new Error('not synced');
      },
      ['readyz'],
    );
    expect((await h.handle('/livez'))?.status).toBe(200);
    expect((await h.handle('/healthz'))?.status).toBe(200);
    expect((await h.handle('/readyz'))?.status).toBe(500);
    expect((await h.handle('/livez/informer-sync'))?.status).toBe(404);
    expect(h.names('readyz')).toEqual(['ping', 'informer-sync']);
    expect(h.remove('informer-sync')).toBe(true);
    expect((await h.handle('/readyz'))?.status).toBe(200);
  });

  it('excludes checks with ?exclude and warns about unknown ones', async () => {
    const h = new HealthChecks();
    h.add('bad', () => {
      throw new Error('x');
    });
    const res = await h.handle('/healthz', { exclude: ['bad', 'zz', 'aa'], verbose: '' });
    expect(res?.status).toBe(200);
    expect(res?.body).toBe(
      '[+]ping ok\n[+]bad excluded: ok\nwarn: some health checks cannot be excluded: no matches for "aa","zz"\nhealthz check passed\n',
    );
    expect((await h.handle('/healthz', new URLSearchParams('exclude=bad')))?.body).toBe('ok');
  });

  it('can fail checks that hang, and can be created without ping', async () => {
    vi.useFakeTimers();
    const h = new HealthChecks({ ping: false, checkTimeoutMs: 1000 });
    h.add('slow', () => new Promise(() => {}));
    const p = h.handle('/healthz/slow');
    await vi.advanceTimersByTimeAsync(1000);
    expect(await p).toEqual({
      status: 500,
      body: 'internal server error: check timed out after 1000ms\n',
      headers: text,
    });
    expect(h.names('livez')).toEqual(['slow']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects duplicate and invalid names and endpoints', () => {
    const h = new HealthChecks();
    expect(() => h.add('ping', () => {})).toThrow(/already registered/);
    expect(() => h.add('a/b', () => {})).toThrow(/path segment/);
    expect(() => h.add('x', () => {}, [])).toThrow(/endpoints/);
    expect(() => h.add('y', () => {}, ['startupz' as never])).toThrow(/unknown endpoint/);
  });
});
