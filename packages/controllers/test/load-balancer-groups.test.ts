import { Workqueue } from '@ccm-kit/runtime/workqueue';
import { describe, expect, it } from 'vitest';
import { GroupedServiceQueue } from '../src/service/group-queue.js';
import { hostUpdateBatches } from '../src/service/host-update-groups.js';
import { groupOfService, LoadBalancerGroupGate } from '../src/shared/load-balancer-groups.js';
import { loadBalancerService } from '@ccm-kit/testing';

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('LoadBalancerGroupGate', () => {
  it('runs one call per group at a time, in arrival order, and other groups at once', async () => {
    const gate = new LoadBalancerGroupGate();
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = gate.run('g', () => new Promise<void>((r) => (releaseFirst = r)).then(() => void order.push('a')));
    const second = gate.run('g', async () => void order.push('b'));
    const third = gate.run('g', async () => void order.push('c'));
    await gate.run('other', async () => void order.push('x'));
    await tick();
    expect(order).toEqual(['x']);
    releaseFirst();
    await Promise.all([first, second, third]);
    expect(order).toEqual(['x', 'a', 'b', 'c']);
    expect(gate.isHeld('g')).toBe(false);
  });

  it('hands the group to a waiting queue key, reserved for it, and a call waits behind the key', async () => {
    const gate = new LoadBalancerGroupGate();
    const ready: string[] = [];
    expect(gate.tryTakeForKey('g', 'ns/a', (k) => ready.push(k))).toBe(true);
    expect(gate.tryTakeForKey('g', 'ns/b', (k) => ready.push(k))).toBe(false);
    expect(gate.tryTakeForKey('g', 'ns/b', (k) => ready.push(k))).toBe(false); // waits once
    let ran = false;
    const call = gate.run('g', async () => void (ran = true));
    gate.releaseKey('g', 'ns/a');
    expect(ready).toEqual(['ns/b']);
    expect(gate.tryTakeForKey('g', 'ns/c', () => {})).toBe(false); // reserved for ns/b
    expect(gate.tryTakeForKey('g', 'ns/b', () => {})).toBe(true);
    await tick();
    expect(ran).toBe(false);
    gate.releaseKey('g', 'ns/b');
    await call;
    expect(ran).toBe(true);
  });

  it('hands on a reservation whose key comes back in another group, or in none', () => {
    const gate = new LoadBalancerGroupGate();
    const ready: string[] = [];
    gate.tryTakeForKey('g', 'ns/a', () => {});
    gate.tryTakeForKey('g', 'ns/b', (k) => ready.push(k));
    gate.tryTakeForKey('g', 'ns/c', (k) => ready.push(k));
    gate.releaseKey('g', 'ns/a'); // reserved for ns/b
    expect(gate.tryTakeForKey('h', 'ns/b', () => {})).toBe(true); // ns/b moved to h: g goes to ns/c
    expect(ready).toEqual(['ns/b', 'ns/c']);
    gate.releaseReservation('ns/c');
    expect(gate.isHeld('g')).toBe(false);
  });

  it('stops waiting when the signal aborts, without making the call', async () => {
    const gate = new LoadBalancerGroupGate();
    gate.tryTakeForKey('g', 'ns/a', () => {});
    const ac = new AbortController();
    let ran = false;
    const waiting = gate.run('g', async () => void (ran = true), ac.signal);
    ac.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    gate.releaseKey('g', 'ns/a');
    expect(ran).toBe(false);
    expect(gate.isHeld('g')).toBe(false);
  });
});

describe('groupOfService', () => {
  const svc = loadBalancerService('web', { namespace: 'team-a' });
  it('is undefined without the provider member, for undefined and for an empty key', () => {
    expect(groupOfService({} as never, 'k', svc)).toBeUndefined();
    expect(groupOfService({ loadBalancerGroup: () => '' } as never, 'k', svc)).toBeUndefined();
    expect(
      groupOfService({ loadBalancerGroup: (_c: string, s: typeof svc) => s.metadata?.namespace } as never, 'k', svc),
    ).toBe('team-a');
  });
  it('names the Service when the provider throws or answers a non-string', () => {
    const throwing = {
      loadBalancerGroup: () => {
        throw new Error('no stack label');
      },
    };
    expect(() => groupOfService(throwing as never, 'k', svc)).toThrow(
      'load-balancer group of team-a/web: no stack label',
    );
    expect(() => groupOfService({ loadBalancerGroup: () => 7 } as never, 'k', svc)).toThrow(
      /loadBalancerGroup must return a string or undefined, got number/,
    );
  });
});

describe('GroupedServiceQueue', () => {
  it('puts a key whose group is busy aside without a failure, and hands it back when the group frees', async () => {
    const inner = new Workqueue<string>({ name: 'test' });
    const gate = new LoadBalancerGroupGate();
    const groups: Record<string, string | undefined> = { 'ns/a': 'g', 'ns/b': 'g', 'ns/c': undefined };
    const queue = new GroupedServiceQueue(inner, gate, (k) => groups[k]);
    inner.add('ns/a');
    inner.add('ns/b');
    inner.add('ns/c');
    expect(await queue.get()).toBe('ns/a');
    expect(await queue.get()).toBe('ns/c'); // ns/b waits for g, outside the queue
    expect(inner.len()).toBe(0);
    expect(queue.numRequeues('ns/b')).toBe(0);
    queue.done('ns/c');
    queue.forget('ns/a');
    queue.done('ns/a'); // g handed to ns/b, which is queued again
    expect(await queue.get()).toBe('ns/b');
    queue.done('ns/b');
    expect(gate.isHeld('g')).toBe(false);
    queue.shutDown();
  });

  it('hands out a key whose group cannot be read, with the error for its reconcile', async () => {
    const inner = new Workqueue<string>({ name: 'test' });
    const queue = new GroupedServiceQueue(inner, new LoadBalancerGroupGate(), () => {
      throw new Error('bad');
    });
    inner.add('ns/a');
    expect(await queue.get()).toBe('ns/a');
    expect((queue.takeGroupError('ns/a') as Error).message).toBe('bad');
    expect(queue.takeGroupError('ns/a')).toBeUndefined();
    queue.shutDown();
  });
});

describe('hostUpdateBatches', () => {
  it('makes one batch per group in first-seen order, one per ungrouped Service, and sets aside unreadable ones', () => {
    const s = (name: string, ns: string) => loadBalancerService(name, { namespace: ns });
    const services = [
      s('a', 'g1'),
      s('b', 'none'),
      undefined,
      s('c', 'g2'),
      s('d', 'g1'),
      s('e', 'bad'),
      s('f', 'none'),
    ];
    const { batches, failed } = hostUpdateBatches(services, (svc) => {
      const ns = svc.metadata!.namespace!;
      if (ns === 'bad') throw new Error('bad');
      return ns === 'none' ? undefined : ns;
    });
    expect(batches.map((b) => [b.group, b.services.map((x) => x.metadata!.name)])).toEqual([
      ['g1', ['a', 'd']],
      [undefined, ['b']],
      ['g2', ['c']],
      [undefined, ['f']],
    ]);
    expect(failed.map((f) => f.service.metadata!.name)).toEqual(['e']);
  });
});
