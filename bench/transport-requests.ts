/**
 * The API transport's cost per request, A/B across checkouts: CPU µs, JS heap bytes allocated and wall per GET of
 * one Node, LIST of every Node (read whole), strategic-merge PATCH of a Node's label, and per event of a watch.
 *
 * Starts one real kube-apiserver + etcd (tools/envtest), creates N realistic Nodes (bench/compare's), builds each
 * checkout with `tsc -b`, then runs a child process per checkout and repetition (`node --expose-gc
 * bench/transport/child.ts`), which loads that checkout's built `RestTransport` (packages/runtime/dist) and
 * measures each kind in turn; the parent makes the watched Node's updates. The checkouts alternate ABBA.
 *
 *   npm run bench:transport [-- --ts-repo=<dir>[,<dir>…] --reps=3 --nodes=1000 --gets=300 --lists=10
 *     --patches=200 --events=300]
 */
import { execFileSync, fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setVerbosity } from '@ccm-kit/runtime';
import { createClientFactory, patchOptions } from '@ccm-kit/runtime/client';
import { startControlPlane } from '@ccm-kit/testing';
import { CoreV1Api } from '@kubernetes/client-node';
import { pool } from './compare/harness.ts';
import { makeNode, nodeName } from './compare/objects.ts';
import type { ChildMessage, ChildTask } from './transport/child.ts';
import { abbaOrder } from './transport/order.ts';
import { renderTable, type RunSample } from './transport/table.ts';

const here = dirname(fileURLToPath(import.meta.url));
const opt = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const num = (name: string, def: number) => Number(opt(name) ?? def);
const repos = (opt('ts-repo') ?? join(here, '..')).split(',').map((d) => resolve(d));
const reps = num('reps', 3);
const N = num('nodes', 1000);
const sizes = {
  gets: num('gets', 300),
  lists: num('lists', 10),
  patches: num('patches', 200),
  events: num('events', 300),
};

/** `<directory name>@<short commit>` of a checkout, its column in the table. */
const labelOf = (repo: string) =>
  `${basename(repo)}@${execFileSync('git', ['-C', repo, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()}`;
const labels = repos.map(labelOf);
if (new Set(labels).size !== labels.length)
  throw new Error(`--ts-repo: the same checkout twice (${labels.join(', ')})`);
for (const repo of repos) {
  console.error(`building ${repo} (tsc -b)`);
  execFileSync('npx', ['tsc', '-b'], { cwd: repo, stdio: 'inherit' });
}

/** One child run: the checkout's transport measured; the watched Node updated when the child asks. */
function runChild(
  repo: string,
  label: string,
  task: Omit<ChildTask, 'repo'>,
  update: (node: string, i: number) => Promise<unknown>,
) {
  return new Promise<RunSample>((done, reject) => {
    const child = fork(join(here, 'transport', 'child.ts'), [], { execArgv: ['--expose-gc'] });
    const fail = (err: unknown) => {
      child.kill();
      reject(err as Error);
    };
    child.on('message', (m: ChildMessage) => {
      if ('result' in m) done({ checkout: label, kinds: m.result });
      else
        void (async () => {
          for (let i = 0; i < m.watching.updates; i++) await update(m.watching.node, i);
        })().catch(fail);
    });
    child.on('exit', (code) => (code === 0 ? undefined : fail(new Error(`${repo}: child exited with ${code}`))));
    child.send({ repo, ...task } satisfies ChildTask);
  });
}

setVerbosity(0);
console.error(`starting a control plane; ${N} Nodes`);
const cp = await startControlPlane();
const runs: RunSample[] = [];
/** The 1-minute load average before the first run and after the last. */
const loads: number[] = [];
try {
  const clients = createClientFactory({ kubeConfig: cp.kubeConfig, qps: -1, userAgent: 'ccm-kit-bench-transport' });
  const core = clients.client('bench', CoreV1Api);
  await pool(
    Array.from({ length: N }, (_, i) => makeNode(i, true)),
    10,
    async (body) => {
      await core.createNode({ body });
    },
  );
  const update = (name: string, i: number) =>
    core.patchNode(
      { name, body: { metadata: { labels: { 'bench.ccm-kit.dev/watch': String(i) } } } },
      patchOptions('strategic'),
    );
  const task = { kubeconfigPath: cp.kubeconfigPath, nodes: Array.from({ length: N }, (_, i) => nodeName(i)), ...sizes };
  loads.push(loadavg()[0]!);
  for (const [i, repo] of abbaOrder(repos, reps).entries()) {
    const label = labels[repos.indexOf(repo)]!;
    console.error(`run ${i + 1}/${reps * repos.length}: ${label}`);
    runs.push(await runChild(repo, label, task, update));
  }
  loads.push(loadavg()[0]!);
  await clients.close();
} finally {
  await cp.stop();
}

console.log(
  `RestTransport per request (a watch: per event), medians of ${reps} runs per checkout alternating ABBA; ${N} Nodes; ` +
    `GET ×${sizes.gets}, LIST ×${sizes.lists}, PATCH ×${sizes.patches}, watch events ×${sizes.events}; Node ${process.version}; ` +
    `load average (1 min) ${loads.map((l) => l.toFixed(2)).join(' → ')}\n`,
);
console.log(renderTable(runs, labels));
