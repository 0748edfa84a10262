import { EventCorrelator, getEventKey, getSpamKey, makeEvent } from '@ccm-kit/runtime/internal';
import type { CoreV1Event } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';

function clock(start = Date.UTC(2026, 0, 2, 3, 4, 5)) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

const node = { apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'uid-1' };
const source = { component: 'cloud-node-controller' };

function ev(c: { now(): number }, reason: string, message: string, type: 'Normal' | 'Warning' = 'Normal'): CoreV1Event {
  return makeEvent(node, undefined, type, reason, message, source, c.now());
}

/** What a server returns for a written event: the same event with a resourceVersion. */
function stored(e: CoreV1Event, rv: string): CoreV1Event {
  return { ...e, metadata: { ...e.metadata, resourceVersion: rv } };
}

describe('EventCorrelator: dedup of identical events', () => {
  it('creates the first occurrence and patches repeats with count, lastTimestamp and message', () => {
    const c = clock();
    const corr = new EventCorrelator({ clock: c });
    const first = corr.correlate(ev(c, 'Synced', 'Node synced successfully'));
    expect(first.skip).toBe(false);
    expect(first.patch).toBeUndefined();
    expect(first.event.count).toBe(1);
    corr.updateState(stored(first.event, '100'));

    c.advance(61_000);
    const second = corr.correlate(ev(c, 'Synced', 'Node synced successfully'));
    expect(second.event.metadata.name).toBe(first.event.metadata.name);
    expect(second.event.metadata.resourceVersion).toBe('100');
    expect(second.event.count).toBe(2);
    expect(second.event.firstTimestamp).toEqual(first.event.firstTimestamp);
    expect(second.patch).toEqual({
      count: 2,
      lastTimestamp: '2026-01-02T03:05:06Z',
      message: 'Node synced successfully',
    });
    corr.updateState(stored(second.event, '101'));
    const third = corr.correlate(ev(c, 'Synced', 'Node synced successfully'));
    expect(third.event.count).toBe(3);
    expect(third.event.metadata.resourceVersion).toBe('101');
  });

  it('counts repeats even before the server answered (observation is recorded at once)', () => {
    const c = clock();
    const corr = new EventCorrelator({ clock: c });
    const a = corr.correlate(ev(c, 'R', 'm'));
    const b = corr.correlate(ev(c, 'R', 'm'));
    expect(a.event.count).toBe(1);
    expect(b.event.count).toBe(2);
    expect(b.event.metadata.name).toBe(a.event.metadata.name);
  });

  it('does not modify the input event', () => {
    const c = clock();
    const corr = new EventCorrelator({ clock: c });
    corr.correlate(ev(c, 'R', 'm'));
    const input = ev(c, 'R', 'm');
    const copy = structuredClone(input);
    corr.correlate(input);
    expect(input).toEqual(copy);
  });

  it('keeps at most lruCacheSize events: an evicted one is created anew', () => {
    const c = clock();
    const corr = new EventCorrelator({ clock: c, lruCacheSize: 2, maxEvents: 100, burstSize: 100 });
    corr.correlate(ev(c, 'A', 'a'));
    corr.correlate(ev(c, 'B', 'b'));
    corr.correlate(ev(c, 'C', 'c'));
    expect(corr.correlate(ev(c, 'A', 'a')).event.count).toBe(1);
    expect(corr.correlate(ev(c, 'C', 'c')).event.count).toBe(2);
  });
});

describe('EventCorrelator: aggregation of similar events', () => {
  it('after 10 distinct messages with the same reason within 10 minutes, combines them', () => {
    const c = clock();
    const corr = new EventCorrelator({ clock: c });
    for (let i = 1; i <= 9; i++) {
      const r = corr.correlate(ev(c, 'FailedToCreateRoute', `attempt ${i}`, 'Warning'));
      expect(r.event.message).toBe(`attempt ${i}`);
      c.advance(30_000);
    }
    const tenth = corr.correlate(ev(c, 'FailedToCreateRoute', 'attempt 10', 'Warning'));
    expect(tenth.event.message).toBe('(combined from similar events): attempt 10');
    expect(tenth.event.count).toBe(1);
    expect(tenth.event.reason).toBe('FailedToCreateRoute');
    expect(tenth.event.type).toBe('Warning');
    expect(tenth.event.metadata.name).toMatch(/^node-1\.[0-9a-f]+$/);
    expect(tenth.patch).toBeUndefined();

    const eleventh = corr.correlate(ev(c, 'FailedToCreateRoute', 'attempt 11', 'Warning'));
    expect(eleventh.event.message).toBe('(combined from similar events): attempt 11');
    expect(eleventh.event.count).toBe(2);
    expect(eleventh.event.metadata.name).toBe(tenth.event.metadata.name);
    expect(eleventh.patch).toMatchObject({ count: 2, message: '(combined from similar events): attempt 11' });
  });

  it('starts afresh when the group has been quiet for more than 10 minutes', () => {
    const c = clock();
    const corr = new EventCorrelator({ clock: c });
    for (let i = 1; i <= 9; i++) corr.correlate(ev(c, 'R', `m${i}`));
    c.advance(600_001);
    const r = corr.correlate(ev(c, 'R', 'm10'));
    expect(r.event.message).toBe('m10');
  });

  it('does not group different reasons, types or objects', () => {
    const c = clock();
    const corr = new EventCorrelator({ clock: c });
    for (let i = 1; i <= 9; i++) corr.correlate(ev(c, 'R', `m${i}`));
    expect(corr.correlate(ev(c, 'Other', 'm10')).event.message).toBe('m10');
    expect(corr.correlate(ev(c, 'R', 'm10', 'Warning')).event.message).toBe('m10');
  });
});

describe('EventCorrelator: spam filter', () => {
  it('lets 25 events about one object through, then 1 per 5 minutes', () => {
    const c = clock();
    const corr = new EventCorrelator({ clock: c, maxEvents: 1000 });
    const results = Array.from({ length: 26 }, (_, i) => corr.correlate(ev(c, `Reason${i}`, 'm')).skip);
    expect(results.slice(0, 25).every((s) => !s)).toBe(true);
    expect(results[25]).toBe(true);
    c.advance(299_000);
    expect(corr.correlate(ev(c, 'More', 'm')).skip).toBe(true);
    c.advance(1_000);
    expect(corr.correlate(ev(c, 'More2', 'm')).skip).toBe(false);
    expect(corr.correlate(ev(c, 'More3', 'm')).skip).toBe(true);
    // Another object has its own budget.
    const other = makeEvent({ ...node, name: 'node-2', uid: 'uid-2' }, undefined, 'Normal', 'X', 'm', source, c.now());
    expect(corr.correlate(other).skip).toBe(false);
  });

  it('keys as upstream', () => {
    const c = clock();
    const e = ev(c, 'Synced', 'msg');
    expect(getSpamKey(e)).toBe('cloud-node-controllerNodenode-1uid-1v1');
    expect(getEventKey(e)).toBe('cloud-node-controllerNodenode-1uid-1v1NormalSyncedmsg');
  });

  it('validates options', () => {
    expect(() => new EventCorrelator({ maxEvents: 0 })).toThrow(/maxEvents/);
    expect(() => new EventCorrelator({ burstSize: 0 })).toThrow(/burst/);
    expect(() => new EventCorrelator({ qps: 0 })).toThrow(/qps/);
  });
});
