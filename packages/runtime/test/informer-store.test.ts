import { V1MicroTime } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  isTombstone,
  metaNamespaceKey,
  objectOfDelete,
  Store,
  splitMetaNamespaceKey,
  stripManagedFields,
} from '../src/informers/index.js';
import { createTombstone } from '../src/informers/tombstone.js';
import { ensureTypeMeta, toPlainObject } from '../src/informers/normalize.js';
import { ReconnectBackoff } from '../src/informers/backoff.js';

type O = { metadata: { name: string; namespace?: string; labels?: Record<string, string> } };
const o = (name: string, namespace?: string, labels?: Record<string, string>): O => ({
  metadata: { name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) },
});

describe('keys', () => {
  it('name for cluster-scoped, namespace/name for namespaced, the key of a tombstone', () => {
    expect(metaNamespaceKey(o('n1'))).toBe('n1');
    expect(metaNamespaceKey(o('s', 'ns'))).toBe('ns/s');
    expect(metaNamespaceKey(createTombstone('ns/gone', o('gone', 'ns')))).toBe('ns/gone');
    expect(() => metaNamespaceKey({ metadata: {} })).toThrow(/metadata.name/);
  });

  it('splits keys and rejects malformed ones', () => {
    expect(splitMetaNamespaceKey('n1')).toEqual({ name: 'n1' });
    expect(splitMetaNamespaceKey('ns/s')).toEqual({ namespace: 'ns', name: 's' });
    for (const bad of ['', 'a/b/c', '/x', 'x/'])
      expect(() => splitMetaNamespaceKey(bad)).toThrow(/unexpected key format/);
  });

  it('tombstones are recognised and unwrapped', () => {
    const t = createTombstone('k', o('k'));
    expect(isTombstone(t)).toBe(true);
    expect(isTombstone(o('k'))).toBe(false);
    expect(objectOfDelete(t)).toEqual(o('k'));
    expect(objectOfDelete(o('x'))).toEqual(o('x'));
  });
});

describe('Store', () => {
  it('gets, lists, replaces and deletes, keeping the namespace index in step', () => {
    const s = new Store<O>();
    s.set('a/x', o('x', 'a'));
    s.set('a/y', o('y', 'a'));
    s.set('b/z', o('z', 'b'));
    expect(s.size).toBe(3);
    expect(
      s
        .listNamespace('a')
        .map((x) => x.metadata.name)
        .sort(),
    ).toEqual(['x', 'y']);
    // moving an object between index values (a different namespace under the same key) re-indexes it
    expect(s.set('a/y', o('y', 'b'))).toEqual(o('y', 'a'));
    expect(s.listNamespace('a').map((x) => x.metadata.name)).toEqual(['x']);
    expect(
      s
        .listNamespace('b')
        .map((x) => x.metadata.name)
        .sort(),
    ).toEqual(['y', 'z']);
    expect(s.delete('b/z')).toEqual(o('z', 'b'));
    expect(s.delete('b/z')).toBeUndefined();
    expect(s.listNamespace('b').map((x) => x.metadata.name)).toEqual(['y']);
    expect(s.get('a/x')).toEqual(o('x', 'a'));
    expect(s.keys().sort()).toEqual(['a/x', 'a/y']);
  });

  it('custom indexers, added before or after objects exist', () => {
    const s = new Store<O>({ zone: (x) => (x.metadata.labels?.zone ? [x.metadata.labels.zone] : []) });
    s.set('n1', o('n1', undefined, { zone: 'z1', pool: 'p' }));
    s.set('n2', o('n2', undefined, { zone: 'z2', pool: 'p' }));
    s.addIndexers({ pool: (x) => [x.metadata.labels?.pool ?? ''] });
    expect(s.byIndex('zone', 'z1').map((x) => x.metadata.name)).toEqual(['n1']);
    expect(s.byIndex('pool', 'p')).toHaveLength(2);
    expect(s.byIndex('zone', 'nowhere')).toEqual([]);
    expect(() => s.byIndex('missing', 'x')).toThrow(/index "missing" does not exist/);
    expect(() => s.addIndexers({ zone: () => [] })).toThrow(/already exists/);
    expect(s.listNamespace('')).toHaveLength(2);
  });
});

describe('normalisation', () => {
  it('toPlainObject turns Dates into the apiserver form and keeps MicroTime precision', () => {
    const plain = toPlainObject({
      a: new Date('2026-01-02T03:04:05Z'),
      b: new Date('2026-01-02T03:04:05.250Z'),
      c: new V1MicroTime('2026-01-02T03:04:05.250Z'),
      d: undefined,
      e: [{ f: new Date(0) }],
    });
    expect(plain).toEqual({
      a: '2026-01-02T03:04:05Z',
      b: '2026-01-02T03:04:05.250Z',
      c: '2026-01-02T03:04:05.250000Z',
      e: [{ f: '1970-01-01T00:00:00Z' }],
    });
  });

  it('ensureTypeMeta fills apiVersion/kind only when missing; stripManagedFields drops managedFields', () => {
    expect(ensureTypeMeta({ metadata: {} }, 'v1', 'Node')).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {},
    });
    expect(ensureTypeMeta({ apiVersion: 'x/v1', kind: 'K' }, 'v1', 'Node')).toEqual({
      apiVersion: 'x/v1',
      kind: 'K',
    });
    expect(stripManagedFields({ metadata: { name: 'a', managedFields: [{}] } })).toEqual({
      metadata: { name: 'a' },
    });
  });
});

describe('ReconnectBackoff', () => {
  it('doubles from 800 ms to 30 s with up to 100 % jitter, capped', () => {
    let now = 0;
    const b = new ReconnectBackoff({ random: () => 0, now: () => now });
    const seq = Array.from({ length: 8 }, () => b.next());
    expect(seq).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
    const j = new ReconnectBackoff({ random: () => 0.5, now: () => now });
    expect(j.next()).toBe(1200);
    // starts over after 2 minutes without a delay
    now += 120_001;
    expect(b.next()).toBe(800);
    b.next();
    b.reset();
    expect(b.next()).toBe(800);
  });

  it('validates its settings', () => {
    expect(() => new ReconnectBackoff({ initialMs: 0 })).toThrow(/initialMs/);
    expect(() => new ReconnectBackoff({ initialMs: 10, maxMs: 5 })).toThrow(/maxMs/);
  });
});
