/**
 * The work loop's own cost per key, tracing off (no tracer provider registered, as in every CCM that does not
 * opt in; docs/tracing.md): keys through `processNextWorkItem` with a reconcile that does nothing, so the loop
 * is all that is measured. Compare two builds of @ccm-kit/runtime by passing the other one's dist:
 *
 *   npm run bench:work-loop -- [--runtime=/path/to/packages/runtime/dist/index.js] [--keys=200000] [--rounds=7]
 *
 * Prints the median and the spread of CPU nanoseconds (user + system, so that other work on a shared machine
 * counts less than in wall time) per key over the rounds, after one warm-up round.
 */
import { pathToFileURL } from 'node:url';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const runtimePath = arg('runtime');
const keys = Number(arg('keys') ?? 200_000);
const rounds = Number(arg('rounds') ?? 7);

type Runtime = typeof import('@ccm-kit/runtime') &
  typeof import('@ccm-kit/runtime/controller') &
  typeof import('@ccm-kit/runtime/tracing') &
  typeof import('@ccm-kit/runtime/workqueue');
/** The runtime's names: a build from before the topic entry points has them all at its root. */
async function loadRuntime(): Promise<Runtime> {
  if (!runtimePath) {
    const topics = ['@ccm-kit/runtime/controller', '@ccm-kit/runtime/tracing', '@ccm-kit/runtime/workqueue'];
    return Object.assign({}, await import('@ccm-kit/runtime'), ...(await Promise.all(topics.map((t) => import(t)))));
  }
  const root = (await import(pathToFileURL(runtimePath).href)) as Partial<Runtime>;
  if ('Workqueue' in root) return root as Runtime;
  // Topic entry points are `<topic>/index.js`; builds before that had them as `topics/<topic>.js`.
  const topic = (name: string) =>
    import(new URL(`${name}/index.js`, pathToFileURL(runtimePath)).href).catch(
      () => import(new URL(`topics/${name}.js`, pathToFileURL(runtimePath)).href),
    );
  return Object.assign({}, root, await topic('controller'), await topic('tracing'), await topic('workqueue'));
}
const rt = await loadRuntime();
if ('loadTracing' in rt && (await rt.loadTracing()))
  throw new Error('a tracer provider is registered: this measures tracing off');

async function round(): Promise<number> {
  const queue = new rt.Workqueue<number>();
  // As runWorkers calls it: with the worker's logger made once.
  const worker = { name: 'bench', queue, reconcile: () => {}, logger: rt.createLogger('bench') };
  const signal = new AbortController().signal;
  for (let i = 0; i < keys; i++) queue.add(i);
  (globalThis as { gc?: () => void }).gc?.();
  const start = process.cpuUsage();
  for (let i = 0; i < keys; i++) await rt.processNextWorkItem(worker, signal, worker.logger);
  const used = process.cpuUsage(start);
  queue.shutDown();
  return ((used.user + used.system) * 1000) / keys;
}

await round();
const perKey: number[] = [];
for (let r = 0; r < rounds; r++) perKey.push(await round());
perKey.sort((a, b) => a - b);
const median = perKey[Math.floor(perKey.length / 2)]!;
console.log(
  `${runtimePath ?? '@ccm-kit/runtime'}: ${median.toFixed(0)} CPU ns per key (median of ${rounds} rounds of ${keys}; min ${perKey[0]!.toFixed(0)}, max ${perKey.at(-1)!.toFixed(0)})`,
);
