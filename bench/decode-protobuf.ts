/**
 * Protobuf against JSON for what a CCM reads most: the decode CPU and allocation per core/v1 Node and Service,
 * of a list and of a watch, from the bytes the server sent to the object a controller gets.
 *
 * Starts a real kube-apiserver (tools/envtest), creates N realistic Nodes and M LoadBalancer Services (as
 * bench/compare's, the Services with an ingress), and reads each list and a watch from resourceVersion 0 twice:
 * `Accept: application/json` and `Accept: application/vnd.kubernetes.protobuf`. Then, in this one process,
 * interleaved over the rounds (the order rotating):
 *
 * - `json`: UTF-8 decode and `JSON.parse` (the list's body; the watch's body line by line), as ccm-kit's client;
 * - `protobuf`: protobufjs decode of the envelope, the list or each watch frame, and the mapping to the shape
 *   `JSON.parse` gives (protobuf/to-json-shape.ts), which is what a controller must see;
 * - `protobuf, decode only`: the same without the mapping (protobufjs's message objects), the floor.
 *
 * Every mapped object is first checked equal to its `JSON.parse` twin. CPU is `process.cpuUsage()` over a batch;
 * allocation is the heap growth over one decode with the young generation large enough that no GC runs in it
 * (run it as the npm script does). The schema is written by hand (protobuf/schema.ts).
 *
 *   npm run bench:decode-protobuf [-- --nodes=500 --services=500 --rounds=7]
 */
import { deepStrictEqual } from 'node:assert';
import { get } from 'node:https';
import { loadavg } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import { setVerbosity } from '@ccm-kit/runtime';
import { createClientFactory, patchOptions } from '@ccm-kit/runtime/client';
import { startControlPlane } from '@ccm-kit/testing';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { BENCH_NAMESPACE, makeNode, makeService, serviceName } from './compare/objects.ts';
import { median } from './compare/stats.ts';
import { unwrap, watchFrames } from './protobuf/envelope.ts';
import { k8sRoot } from './protobuf/schema.ts';
import { jsonShapers } from './protobuf/to-json-shape.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with --expose-gc (npm run bench:decode-protobuf)');
  process.exit(2);
}
const arg = (name: string, def: number) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? Number(hit.split('=')[1]) : def;
};
const N = arg('nodes', 500);
const M = arg('services', 500);
const ROUNDS = arg('rounds', 7);
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

// ---- the schema -------------------------------------------------------------------------------------
const root = k8sRoot();
const type = (name: string) => root.lookupType(`k8s.${name}`);
const shapers = jsonShapers(root);
const Unknown = type('Unknown');
const WatchEvent = type('WatchEvent');

type Obj = Record<string, unknown>;
type Decoder = (body: Buffer) => unknown[];

/** The enveloped object `bytes` as `JSON.parse` would give it, `kind` and `apiVersion` first. */
function decodeObject(bytes: Uint8Array, shape: boolean, typeMeta: boolean): Obj {
  const u = unwrap(Unknown, bytes);
  const msg = type(u.kind).decode(u.raw) as unknown as Obj;
  if (!shape) return msg;
  const shaped = shapers.get(u.kind)!(msg) as Obj;
  return typeMeta ? { kind: u.kind, apiVersion: u.apiVersion, ...shaped } : shaped;
}

/** Protobuf decoders of a list and of a watch's frames; `shape`: mapped to the JSON shape (with `kind`, `apiVersion`). */
function protobufDecoders(shape: boolean): { list: Decoder; watch: Decoder } {
  return {
    list: (body) => [decodeObject(body, shape, shape)],
    watch: (body) =>
      Array.from(watchFrames(body), (frame) => {
        const e = WatchEvent.decode(frame) as unknown as { type: string; object: { raw: Uint8Array } };
        return { type: e.type, object: decodeObject(e.object.raw, shape, shape) };
      }),
  };
}

const decoders: Record<string, { list: Decoder; watch: Decoder }> = {
  json: {
    list: (body) => [JSON.parse(body.toString('utf8'))],
    watch: (body) =>
      body
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as unknown),
  },
  protobuf: protobufDecoders(true),
  'protobuf, decode only': protobufDecoders(false),
};

// ---- the data: a real API server's bytes ------------------------------------------------------------
async function fetchBody(kc: KubeConfig, path: string, accept: string): Promise<Buffer> {
  const opts: { headers?: Record<string, string> } & Record<string, unknown> = {};
  await kc.applyToHTTPSOptions(opts);
  const url = new URL(path, kc.getCurrentCluster()!.server);
  return new Promise((resolve, reject) => {
    get(url, { ...opts, headers: { ...opts.headers, Accept: accept } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        res.statusCode === 200
          ? resolve(Buffer.concat(chunks))
          : reject(new Error(`GET ${path}: ${res.statusCode} ${Buffer.concat(chunks).toString()}`)),
      );
      res.on('error', reject);
    }).on('error', reject);
  });
}

async function pool<T>(items: readonly T[], n: number, fn: (x: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

setVerbosity(0);
console.error(`starting a control plane; ${N} Nodes, ${M} Services`);
// Room for more than the default /24's 254 Services.
const cp = await startControlPlane({ apiServerFlags: { 'service-cluster-ip-range': '10.0.0.0/16' } });
const bodies: Record<string, Record<'json' | 'protobuf', Buffer>> = {};
try {
  const clients = createClientFactory({ kubeConfig: cp.kubeConfig, qps: -1, userAgent: 'ccm-kit-bench-decode' });
  const core = clients.client('bench', CoreV1Api);
  await pool(
    Array.from({ length: N }, (_, i) => makeNode(i, true)),
    10,
    (body) => core.createNode({ body }),
  );
  await core.createNamespace({ body: { metadata: { name: BENCH_NAMESPACE } } });
  await pool(
    Array.from({ length: M }, (_, i) => i),
    10,
    async (i) => {
      await core.createNamespacedService({ namespace: BENCH_NAMESPACE, body: makeService(i) });
      await core.patchNamespacedServiceStatus(
        {
          name: serviceName(i),
          namespace: BENCH_NAMESPACE,
          body: { status: { loadBalancer: { ingress: [{ ip: `198.18.${i >> 8}.${i & 255}`, ipMode: 'VIP' }] } } },
        },
        patchOptions('merge'),
      );
    },
  );
  await clients.close();
  for (const [what, path] of [
    ['Node list', '/api/v1/nodes'],
    ['Node watch', '/api/v1/nodes?watch=true&resourceVersion=0&timeoutSeconds=1'],
    ['Service list', `/api/v1/namespaces/${BENCH_NAMESPACE}/services`],
    ['Service watch', `/api/v1/namespaces/${BENCH_NAMESPACE}/services?watch=true&resourceVersion=0&timeoutSeconds=1`],
  ] as const) {
    bodies[what] = {
      json: await fetchBody(cp.kubeConfig, path, 'application/json'),
      protobuf: await fetchBody(cp.kubeConfig, path, PROTOBUF),
    };
  }
} finally {
  await cp.stop();
}

// ---- the check: the mapped objects are the JSON objects ---------------------------------------------
const counts: Record<string, number> = {};
for (const [what, b] of Object.entries(bodies)) {
  const kind = what.endsWith('watch') ? 'watch' : 'list';
  const fromJson = decoders.json![kind](b.json);
  const fromPb = decoders.protobuf![kind](b.protobuf);
  // The list's metadata carries the resourceVersion of the moment each was read: compare the items.
  const items = (xs: unknown[]) => (kind === 'list' ? ((xs[0] as Obj).items as unknown[]) : xs);
  deepStrictEqual(items(fromPb), items(fromJson), `${what}: the protobuf objects differ from the JSON ones`);
  counts[what] = items(fromJson).length;
  console.error(
    `${what}: ${counts[what]} objects equal; JSON ${b.json.length} bytes, protobuf ${b.protobuf.length} bytes`,
  );
}

// ---- the measurement --------------------------------------------------------------------------------
let gcs = 0;
new PerformanceObserver((l) => (gcs += l.getEntries().length)).observe({ entryTypes: ['gc'] });
// GC entries reach the observer asynchronously: wait long enough for those of the work before.
const settle = () => new Promise((r) => setTimeout(r, 50));

/** CPU µs per object over a batch of `iters` decodes. */
function cpuPerObject(decode: Decoder, body: Buffer, objects: number, iters: number): number {
  const c0 = process.cpuUsage();
  let keep: unknown;
  for (let i = 0; i < iters; i++) keep = decode(body);
  const c = process.cpuUsage(c0);
  if (keep === undefined) throw new Error('nothing decoded');
  return (c.user + c.system) / (iters * objects);
}

/** Bytes allocated per object in one decode, or NaN when a GC ran in it. */
async function allocPerObject(decode: Decoder, body: Buffer, objects: number): Promise<number> {
  gc!();
  await settle();
  const before = gcs;
  const h0 = process.memoryUsage().heapUsed;
  const keep = decode(body);
  const h1 = process.memoryUsage().heapUsed;
  await settle();
  if (keep.length === 0) throw new Error('nothing decoded');
  return gcs === before ? (h1 - h0) / objects : NaN;
}

const names = Object.keys(decoders);
interface Row {
  what: string;
  variant: string;
  cpuUs: number[];
  allocB: number[];
}
const rows: Row[] = [];
const load0 = loadavg()[0]!;
for (const [what, b] of Object.entries(bodies)) {
  const kind = what.endsWith('watch') ? 'watch' : 'list';
  const n = counts[what]!;
  // Warm up every decoder (JIT), and size a batch to about 0.5 s of the JSON decode (by the clock: the CPU
  // clock may advance in ticks of several milliseconds).
  for (const v of names) for (let i = 0; i < 20; i++) decoders[v]![kind](v === 'json' ? b.json : b.protobuf);
  const t0 = performance.now();
  for (let i = 0; i < 10; i++) decoders.json![kind](b.json);
  const iters = Math.max(5, Math.round(500 / ((performance.now() - t0) / 10)));
  const byVariant = new Map(names.map((v) => [v, { what, variant: v, cpuUs: [] as number[], allocB: [] as number[] }]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]!);
    for (const v of order) {
      const body = v === 'json' ? b.json : b.protobuf;
      const row = byVariant.get(v)!;
      row.cpuUs.push(cpuPerObject(decoders[v]![kind], body, n, iters));
      row.allocB.push(await allocPerObject(decoders[v]![kind], body, n));
    }
  }
  rows.push(...byVariant.values());
}
const load1 = loadavg()[0]!;

// ---- the report -------------------------------------------------------------------------------------
const med = (xs: number[]) => median(xs.filter((x) => !Number.isNaN(x)));
console.log(
  `decode per object, medians of ${ROUNDS} interleaved rounds; ${N} Nodes, ${M} Services; Node ${process.version}; load average (1 min) ${load0.toFixed(2)} → ${load1.toFixed(2)}\n`,
);
console.log('| body | decoder | bytes per object | CPU µs per object | ÷ json | allocated KiB per object | ÷ json |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  const json = rows.find((x) => x.what === r.what && x.variant === 'json')!;
  const b = bodies[r.what]!;
  const bytes = (r.variant === 'json' ? b.json.length : b.protobuf.length) / counts[r.what]!;
  // The ratio of each round's pair, then the median: the rounds share their load.
  const cpuRatio = median(r.cpuUs.map((x, i) => x / json.cpuUs[i]!));
  const allocRatio = med(r.allocB.map((x, i) => x / json.allocB[i]!));
  console.log(
    `| ${r.what} | ${r.variant} | ${bytes.toFixed(0)} | ${med(r.cpuUs).toFixed(1)} | ${cpuRatio.toFixed(2)} | ${(med(r.allocB) / 1024).toFixed(1)} | ${allocRatio.toFixed(2)} |`,
  );
}
