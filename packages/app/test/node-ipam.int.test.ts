/**
 * node-ipam-controller in the cloud-controller-manager against a real kube-apiserver: 200 Nodes created at once
 * get distinct CIDRs of both families, in `--cluster-cidr` order; a manager restarted in the middle and a leader
 * killed in the middle (two replicas, a provider binary as a process) leave no duplicate and no Node without;
 * a pool of 4 blocks and 6 Nodes gives 4 allocated, 2 `CIDRNotAvailable` Events, and a deleted Node lets a
 * waiting one through; the route controller routes the allocated CIDRs.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ControlPlane, FakeCloud, uniqueName } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCloudControllerManager } from '../src/index.js';
import { applyManifest, type RunningProcess, repoRoot, startProcess } from './ccm-harness.js';
import * as fixture from './node-ipam-fixture.js';
import { allocated, expectDistinctAllocation } from './node-ipam-fixture.js';

const controlPlane = useControlPlane();
let cp: ControlPlane;
let core: CoreV1Api;
const running: RunningProcess[] = [];
let dir: string | undefined;

beforeAll(() => {
  cp = controlPlane();
  core = cp.kubeConfig.makeApiClient(CoreV1Api);
});

afterAll(async () => {
  for (const p of running) p.child.kill('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

const createNodes = (group: string, count: number) => fixture.createNodes(core, group, count);
const nodesOf = (group: string) => fixture.nodesOf(core, group);
const waitAllAllocated = (group: string, count: number, timeoutMs?: number) =>
  fixture.waitAllAllocated(core, group, count, timeoutMs);

const DUAL_STACK = '10.64.0.0/16,fd00:64::/56';
const IPAM = ['--controllers=node-ipam-controller', '--allocate-node-cidrs=true', '--concurrent-node-syncs=10'];

/** The in-process manager with node-ipam-controller only (FakeCloud; no lifecycle controller to delete Nodes). */
function startIpamCcm(extra: string[], cloud = new FakeCloud({ enableInstancesV2: true })) {
  return startCloudControllerManager({
    argv: ['--cloud-provider=fake', '--leader-elect=false', '--secure-port=0', ...IPAM, ...extra],
    cloud,
    kubeConfig: cp.kubeConfig,
  });
}

it('200 Nodes created at once, dual-stack: each gets one IPv4 and one IPv6 CIDR, in order, none shared', async () => {
  const ccm = await startIpamCcm([`--cluster-cidr=${DUAL_STACK}`]);
  try {
    const group = uniqueName('ipam200');
    const started = Date.now();
    await createNodes(group, 200);
    const nodes = await waitAllAllocated(group, 200);
    console.log(`node-ipam: 200 Nodes created and allocated in ${Date.now() - started} ms`);
    expectDistinctAllocation(nodes, DUAL_STACK);
    expect(nodes.every((n) => n.spec!.podCIDRs![0]!.includes('.') && n.spec!.podCIDRs![1]!.includes(':'))).toBe(true);
    await Promise.all(nodes.map((n) => core.deleteNode({ name: n.metadata!.name! })));
  } finally {
    await ccm.stop();
  }
  await ccm.done;
}, 120_000);

it('a manager restarted in the middle rebuilds its pools from the Nodes: no duplicate, no Node left without', async () => {
  const cluster = '10.65.0.0/16';
  const group = uniqueName('ipamrestart');
  const first = await startIpamCcm([`--cluster-cidr=${cluster}`]);
  let atStop: number;
  let stopped = false;
  try {
    await createNodes(`${group}`, 100);
    await waitAllAllocated(group, 100);
    // A second wave; the manager stops as soon as it has started on it.
    const wave = (async () => {
      for (let i = 100; i < 200; i += 20) {
        await Promise.all(
          Array.from({ length: 20 }, (_, j) =>
            core.createNode({ body: { metadata: { name: `${group}-${i + j}`, labels: { group } } } }),
          ),
        );
      }
    })();
    await eventuallyValue(async () => allocated(await nodesOf(group)).length > 100, 'the second wave to start');
    atStop = allocated(await nodesOf(group)).length;
    await first.stop();
    stopped = true;
    await first.done;
    await wave;
  } finally {
    if (!stopped) await first.stop();
  }
  console.log(`node-ipam: ${atStop} of 200 Nodes allocated when the first manager stopped`);
  const second = await startIpamCcm([`--cluster-cidr=${cluster}`]);
  try {
    const nodes = await waitAllAllocated(group, 200);
    expectDistinctAllocation(nodes, cluster);
    await Promise.all(nodes.map((n) => core.deleteNode({ name: n.metadata!.name! })));
  } finally {
    await second.stop();
  }
  await second.done;
}, 120_000);

it('a pool of 4 and 6 Nodes: 4 allocated and routed, 2 CIDRNotAvailable; deleting one lets a waiting one through', async () => {
  const cloud = new FakeCloud({ enableInstancesV2: true });
  const group = uniqueName('ipampool');
  const cluster = '10.66.0.0/22';
  const ccm = await startIpamCcm(
    [
      `--cluster-cidr=${cluster}`,
      '--node-cidr-mask-size=24',
      '--controllers=node-ipam-controller,node-route-controller',
      '--configure-cloud-routes=true',
      '--route-reconciliation-period=1s',
    ],
    cloud,
  );
  try {
    const names = await createNodes(group, 6);
    for (const name of names) cloud.setInstance(name, { providerID: `fake://${name}` });
    const four = await eventuallyValue(async () => {
      const nodes = allocated(await nodesOf(group));
      return nodes.length === 4 ? nodes : undefined;
    }, '4 Nodes to be allocated');
    expectDistinctAllocation(four, cluster);
    const waiting = names.filter((n) => !four.some((a) => a.metadata!.name === n));
    const events = async (name: string) =>
      (await core.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.name=${name}` })).items;
    for (const name of waiting) {
      const e = await eventuallyValue(
        async () => (await events(name)).find((x) => x.reason === 'CIDRNotAvailable'),
        `CIDRNotAvailable on ${name}`,
      );
      expect(e.type).toBe('Warning');
      expect(e.message).toBe(`Node ${name} status is now: CIDRNotAvailable`);
      expect(e.source?.component ?? e.reportingComponent).toBe('cidrAllocator');
    }
    // The route controller routes the allocated CIDRs, with no other change.
    await eventuallyValue(
      async () =>
        four.every((n) => [...cloud.routeMap.values()].some((r) => r.route.destinationCIDR === n.spec!.podCIDR)) ||
        undefined,
      'a route for every allocated CIDR',
    );
    // Still 4 after more retries.
    expect(allocated(await nodesOf(group))).toHaveLength(4);
    const freed = four[0]!;
    await core.deleteNode({ name: freed.metadata!.name! });
    const five = await eventuallyValue(async () => {
      const nodes = allocated(await nodesOf(group));
      return nodes.length === 4 && nodes.some((n) => waiting.includes(n.metadata!.name!)) ? nodes : undefined;
    }, 'a waiting Node to get the freed CIDR');
    expectDistinctAllocation(five, cluster);
    expect(five.find((n) => waiting.includes(n.metadata!.name!))!.spec!.podCIDR).toBe(freed.spec!.podCIDR);
    for (const n of await nodesOf(group)) await core.deleteNode({ name: n.metadata!.name! });
  } finally {
    await ccm.stop();
  }
  await ccm.done;
}, 120_000);

it('two replicas as processes, the leader killed (SIGKILL) in the middle: no duplicate, no Node left without', async () => {
  const SA_USER = 'system:serviceaccount:kube-system:cloud-controller-manager';
  await applyManifest(cp.kubeConfig, join(repoRoot, 'docs/deploy/rbac.yaml'));
  const user = await cp.addUser(SA_USER, ['system:serviceaccounts', 'system:serviceaccounts:kube-system']);
  dir = await mkdtemp(join(tmpdir(), 'ccm-ipam-'));
  const cloudConfig = join(dir, 'cloud.yaml');
  await writeFile(cloudConfig, 'machines: []\n');
  const cluster = '10.67.0.0/16,fd00:67::/56';
  // Replicas as a Deployment keeps them: one that exits (killed, or fenced because the loaded machine kept it
  // from renewing) is started again.
  let stopping = false;
  const start = (): RunningProcess => {
    const proc = startProcess(join(repoRoot, 'examples/minimal/dist/main.js'), [
      '--cloud-provider=minimal',
      `--cloud-config=${cloudConfig}`,
      `--kubeconfig=${user.kubeconfigPath}`,
      '--secure-port=0',
      '--leader-elect=true',
      '--leader-elect-lease-duration=8s',
      '--leader-elect-renew-deadline=6s',
      '--leader-elect-retry-period=1s',
      ...IPAM,
      `--cluster-cidr=${cluster}`,
    ]);
    running.push(proc);
    void proc.exited.then(() => {
      if (!stopping) start();
    });
    return proc;
  };
  const replicas = [start(), start()];
  const coord = cp.kubeConfig.makeApiClient(CoordinationV1Api);
  const holder = await eventuallyValue(
    async () => {
      const lease = await coord.readNamespacedLease({ name: 'cloud-controller-manager', namespace: 'kube-system' });
      return lease.spec?.holderIdentity || undefined;
    },
    { what: 'a leader', timeoutMs: 30_000 },
  );
  const group = uniqueName('ipamfailover');
  const creating = createNodes(group, 200);
  await eventuallyValue(async () => allocated(await nodesOf(group)).length >= 20, {
    what: 'the leader to start allocating',
    timeoutMs: 30_000,
  });
  // The leader is the replica whose identity the Lease names (each logs its identity when it campaigns).
  const leader = replicas.find((r) => r.output().includes(holder))!;
  const atKill = allocated(await nodesOf(group)).length;
  leader.child.kill('SIGKILL');
  await creating;
  console.log(`node-ipam: ${atKill} of 200 Nodes allocated when the leader was killed`);
  const nodes = await waitAllAllocated(group, 200, 90_000);
  expectDistinctAllocation(nodes, cluster);
  // Another process finished the allocation.
  expect(running.some((r) => r !== leader && r.output().includes('Starting range CIDR allocator'))).toBe(true);
  stopping = true;
  for (const r of running) r.child.kill('SIGKILL');
}, 180_000);
