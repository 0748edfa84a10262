/** Helpers shared by the informer integration tests. */
import type { ControlPlane } from '@ccm-kit/testing';
import { useTestCluster } from '@ccm-kit/testing/vitest';
import { type Cluster, type CoreV1Api, KubeConfig, type V1Node } from '@kubernetes/client-node';
import { metricsRegistry } from '../src/index.js';
import { isTombstone, type SharedInformer } from '../src/informers/index.js';
import { until as untilHolds } from './until.js';

/** A KubeConfig identical to `kc` but pointing at `server` (e.g. a TCP proxy). */
export function viaServer(kc: KubeConfig, server: string): KubeConfig {
  const out = new KubeConfig();
  out.loadFromOptions({
    clusters: kc.getClusters().map((c): Cluster => ({ ...c, server })),
    users: kc.getUsers(),
    contexts: kc.getContexts(),
    currentContext: kc.getCurrentContext(),
  });
  return out;
}

/** {@link untilHolds} polling every 25 ms (the conditions list Nodes on the API server). */
export const until = (cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string) =>
  untilHolds(cond, timeoutMs, what, 25);

/** Registers the file's admin TestCluster on `cp` (client name `test-admin`); returns a getter of its CoreV1 client. */
export function useAdminCore(cp: () => ControlPlane): () => CoreV1Api {
  const admin = useTestCluster({ controlPlane: cp, clientName: 'test-admin' });
  return () => admin().core;
}

/** Sum of a metric's values whose labels include `labels`. */
export async function counter(name: string, labels: Record<string, string>): Promise<number> {
  const m = await metricsRegistry.getSingleMetric(name)?.get();
  return (
    m?.values
      .filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))
      .reduce((a, v) => a + v.value, 0) ?? 0
  );
}

export interface Recorded {
  adds: string[];
  updates: string[];
  deletes: string[];
  tombstones: string[];
}

/** Records the names in each notification of a Node informer. */
export function recordNodes(inf: SharedInformer<V1Node>): Recorded {
  const r: Recorded = { adds: [], updates: [], deletes: [], tombstones: [] };
  inf.addEventHandler({
    onAdd: (n) => r.adds.push(n.metadata?.name ?? ''),
    onUpdate: (_o, n) => r.updates.push(n.metadata?.name ?? ''),
    onDelete: (n) => {
      if (isTombstone(n)) r.tombstones.push(n.key);
      else r.deletes.push(n.metadata?.name ?? '');
    },
  });
  return r;
}

/** Creates Nodes labelled `ccm-kit-test=<id>` so each test's informer sees only its own. */
export async function createNodes(core: CoreV1Api, id: string, names: string[]): Promise<void> {
  for (const name of names) await core.createNode({ body: { metadata: { name, labels: { 'ccm-kit-test': id } } } });
}

/** Sorted names of the test's Nodes on the server. */
export async function serverNames(core: CoreV1Api, id: string): Promise<string[]> {
  const list = await core.listNode({ labelSelector: `ccm-kit-test=${id}` });
  return list.items.map((n) => n.metadata?.name ?? '').sort();
}

/** Sorted names in an informer's cache. */
export function cacheNames(inf: SharedInformer<V1Node>): string[] {
  return inf.lister
    .list()
    .map((n) => n.metadata?.name ?? '')
    .sort();
}

/** True when the cache holds exactly the server's Nodes of the test. */
export async function converged(core: CoreV1Api, id: string, inf: SharedInformer<V1Node>): Promise<boolean> {
  return JSON.stringify(cacheNames(inf)) === JSON.stringify(await serverNames(core, id));
}
