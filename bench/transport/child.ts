/**
 * One run of `transport-requests.ts` in a process of its own: loads one checkout's built `RestTransport`
 * (packages/runtime/dist) and measures, per request, a GET of one Node, a LIST of every Node (read whole), a
 * strategic-merge PATCH of a Node's label, and per event a watch of one Node that the parent updates.
 * Forked with IPC by the parent: it receives a {@link ChildTask} and answers {@link ChildMessage}s.
 */
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { measureBatch } from './measure.ts';
import type { KindSample } from './table.ts';

/** What the parent asks of a child. */
export interface ChildTask {
  /** The checkout whose built runtime is measured. */
  repo: string;
  kubeconfigPath: string;
  /** Names of the seeded Nodes. */
  nodes: string[];
  gets: number;
  lists: number;
  patches: number;
  /** Watch events measured (after as many unmeasured again as a warm-up, up to 50). */
  events: number;
}

/** What a child tells the parent: a watch is open and waits for `updates` changes of `node`; then the result. */
export type ChildMessage = { watching: { node: string; updates: number } } | { result: KindSample[] };

/** The part of a checkout's `RestTransport` used here (its constructor and `request` have kept this shape). */
interface Transport {
  request(
    path: string,
    userAgent: string,
    opts?: {
      method?: string;
      query?: Record<string, string | number | boolean>;
      body?: string;
      headers?: Record<string, string>;
      watch?: boolean;
      signal?: AbortSignal;
    },
  ): Promise<{ status: number; body: Readable; json(): Promise<unknown>; cancel(): Promise<void> }>;
  close(): Promise<void>;
}

const UA = 'ccm-kit-bench-transport';

async function loadTransport(repo: string, kubeconfigPath: string): Promise<Transport> {
  const dist = join(repo, 'packages', 'runtime', 'dist');
  const { RestTransport } = (await import(pathToFileURL(join(dist, 'internal.js')).href)) as {
    RestTransport: new (kc: unknown, o: { qps: number; burst: number; timeoutMs: number }) => Transport;
  };
  const { loadKubeConfig } = (await import(pathToFileURL(join(dist, 'client', 'index.js')).href)) as {
    loadKubeConfig: (o: { kubeconfig: string }) => unknown;
  };
  // Unthrottled, as the parent measures the transport, not the limiter.
  return new RestTransport(loadKubeConfig({ kubeconfig: kubeconfigPath }), { qps: -1, burst: 1, timeoutMs: 60_000 });
}

async function ok(resp: Awaited<ReturnType<Transport['request']>>, what: string): Promise<unknown> {
  if (resp.status >= 300) throw new Error(`${what}: HTTP ${resp.status}: ${JSON.stringify(await resp.json())}`);
  return resp.json();
}

/** Measures each request kind in turn through `t`; `onWatching` is told when the watch waits for updates. */
async function run(t: Transport, task: ChildTask, onWatching: (m: ChildMessage) => void): Promise<KindSample[]> {
  const node = (i: number) => task.nodes[i % task.nodes.length]!;
  const samples = [
    await measureBatch('GET Node', task.gets, async (i) => {
      await ok(await t.request(`/api/v1/nodes/${node(i)}`, UA), 'GET');
    }),
    await measureBatch(`LIST ${task.nodes.length} Nodes`, task.lists, async () => {
      const list = (await ok(await t.request('/api/v1/nodes', UA), 'LIST')) as { items: unknown[] };
      if (list.items.length !== task.nodes.length) throw new Error(`LIST: ${list.items.length} Nodes`);
    }),
    await measureBatch('PATCH Node label', task.patches, async (i) => {
      const body = JSON.stringify({ metadata: { labels: { 'bench.ccm-kit.dev/patch': String(i) } } });
      const headers = { 'content-type': 'application/strategic-merge-patch+json' };
      await ok(await t.request(`/api/v1/nodes/${node(i)}`, UA, { method: 'PATCH', body, headers }), 'PATCH');
    }),
  ];
  samples.push(await measureWatch(t, node(0), task.events, onWatching));
  return samples;
}

/** A watch of one Node: per event received and parsed, after a warm-up of up to 50 events. */
async function measureWatch(
  t: Transport,
  name: string,
  events: number,
  onWatching: (m: ChildMessage) => void,
): Promise<KindSample> {
  const current = (await ok(await t.request(`/api/v1/nodes/${name}`, UA), 'GET')) as {
    metadata: { resourceVersion: string };
  };
  const ac = new AbortController();
  const query = {
    watch: true,
    resourceVersion: current.metadata.resourceVersion,
    fieldSelector: `metadata.name=${name}`,
  };
  const resp = await t.request('/api/v1/nodes', UA, { query, watch: true, signal: ac.signal });
  if (resp.status !== 200) throw new Error(`watch: HTTP ${resp.status}`);
  const lines = createInterface({ input: resp.body, crlfDelay: Infinity })[Symbol.asyncIterator]();
  const warmup = Math.min(50, events);
  onWatching({ watching: { node: name, updates: warmup + events } });
  const next = async () => {
    const line = await lines.next();
    if (line.done) throw new Error('watch ended early');
    const e = JSON.parse(line.value) as { type: string };
    if (e.type !== 'MODIFIED') throw new Error(`watch: unexpected ${line.value.slice(0, 200)}`);
  };
  try {
    return await measureBatch('watch event', events, next, { warmup });
  } finally {
    ac.abort();
    await resp.cancel();
  }
}

process.once('message', (task: ChildTask) => {
  const send = (m: ChildMessage) => process.send!(m);
  void (async () => {
    const t = await loadTransport(task.repo, task.kubeconfigPath);
    try {
      send({ result: await run(t, task, send) });
    } finally {
      await t.close();
    }
    process.disconnect();
  })().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
});
