import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { kubeletNode, uniqueName as uniq } from '@ccm-kit/testing';
import { eventually, useControlPlane } from '@ccm-kit/testing/vitest';
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
  V1MicroTime,
  type V1Node,
  Watch,
} from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { alive } from './alive.js';

const run = Date.now().toString(36);
function statusOf(err: unknown): number | undefined {
  return err instanceof ApiException ? err.code : undefined;
}

interface WatchEvent {
  type: string;
  name: string;
  rv: string;
}

/** Starts a watch and collects its events; `ended` resolves with the done() argument. */
async function collectWatch(
  cp: { kubeConfig: import('@kubernetes/client-node').KubeConfig },
  path: string,
  rv: string,
) {
  const events: WatchEvent[] = [];
  let resolveEnded!: (err: unknown) => void;
  const ended = new Promise<unknown>((r) => {
    resolveEnded = r;
  });
  const ctl = await new Watch(cp.kubeConfig).watch(
    path,
    { resourceVersion: rv, allowWatchBookmarks: false },
    (type, obj) => {
      if (process.env.DEBUG_WATCH) console.log('watch event', type, JSON.stringify(obj).slice(0, 300));
      events.push({ type, name: obj?.metadata?.name, rv: obj?.metadata?.resourceVersion });
    },
    (err) => resolveEnded(err ?? null),
  );
  return { events, ended, abort: () => ctl.abort() };
}

/** An initialized-looking Node (providerID `fake://<name>`, no taints) labelled with this run. */
const node = (name: string, labels: Record<string, string> = {}): V1Node =>
  kubeletNode(name, { taints: [], providerID: `fake://${name}`, labels: { 'ccm-kit.test/run': run, ...labels } });

describe('startControlPlane (shared control plane)', () => {
  const cp = useControlPlane();

  it('uses the binaries the global setup exported', () => {
    expect(process.env.TEST_ASSET_KUBE_APISERVER).toBeTruthy();
    expect(cp().binaries.kubeApiServer).toBe(process.env.TEST_ASSET_KUBE_APISERVER);
    expect(cp().binaries.etcd).toBe(process.env.TEST_ASSET_ETCD);
    expect(cp().server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('admin is in system:masters and sees the bootstrap namespaces', async () => {
    const core = cp().kubeConfig.makeApiClient(CoreV1Api);
    const names = (await core.listNamespace()).items.map((n) => n.metadata?.name);
    expect(names).toEqual(expect.arrayContaining(['default', 'kube-system', 'kube-public', 'kube-node-lease']));
  });

  it('the kubeconfig file works with kubectl', async () => {
    const kubectl = process.env.TEST_ASSET_KUBECTL;
    expect(kubectl && existsSync(kubectl)).toBe(true);
    const { stdout } = await promisify(execFile)(kubectl!, [
      '--kubeconfig',
      cp().kubeconfigPath,
      'get',
      'namespace',
      'default',
      '-o',
      'jsonpath={.metadata.name}',
    ]);
    expect(stdout).toBe('default');
  });

  it('Nodes: create, list by label, watch, and PATCH with all four content types', async () => {
    const core = cp().kubeConfig.makeApiClient(CoreV1Api);
    const name = uniq('node');
    const created = await core.createNode({ body: node(name, { role: 'patch-test' }) });
    const watch = await collectWatch(cp(), '/api/v1/nodes', created.metadata!.resourceVersion!);

    const listed = await core.listNode({ labelSelector: `ccm-kit.test/run=${run},role=patch-test` });
    expect(listed.items.map((n) => n.metadata?.name)).toEqual([name]);

    // 1. JSON Patch
    await core.patchNode(
      { name, body: [{ op: 'add', path: '/metadata/labels/json-patch', value: 'yes' }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    // 2. JSON merge patch
    await core.patchNode(
      { name, body: { metadata: { labels: { 'merge-patch': 'yes' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    // 3. Strategic merge patch on the status subresource: addresses merge by `type` (a merge patch would replace the list).
    await core.patchNodeStatus(
      { name, body: { status: { addresses: [{ type: 'InternalIP', address: '10.1.0.5' }] } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core.patchNodeStatus(
      { name, body: { status: { addresses: [{ type: 'Hostname', address: name }] } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    // 4. Server-side apply
    await core.patchNode(
      {
        name,
        fieldManager: 'ccm-kit-test',
        force: true,
        body: { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { applied: 'yes' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    );

    const got = await core.readNode({ name });
    expect(got.metadata?.labels).toMatchObject({ 'json-patch': 'yes', 'merge-patch': 'yes', applied: 'yes' });
    expect(got.status?.addresses).toEqual(
      expect.arrayContaining([
        { type: 'InternalIP', address: '10.1.0.5' },
        { type: 'Hostname', address: name },
      ]),
    );
    expect(got.status?.addresses).toHaveLength(2);
    const managers = got.metadata?.managedFields?.map((m) => `${m.manager}/${m.operation}`);
    expect(managers).toContain('ccm-kit-test/Apply');

    await eventually(async () => expect(watch.events.filter((e) => e.name === name).length).toBeGreaterThanOrEqual(5));
    expect(watch.events.every((e) => e.type === 'MODIFIED')).toBe(true);
    watch.abort();

    await core.deleteNode({ name });
    await expect(core.readNode({ name })).rejects.toSatisfy((e) => statusOf(e) === 404);
  });

  it('Services: create a LoadBalancer, set status.loadBalancer through the status subresource only', async () => {
    const core = cp().kubeConfig.makeApiClient(CoreV1Api);
    const namespace = uniq('svc');
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const name = 'lb';
    const svc = await core.createNamespacedService({
      namespace,
      body: {
        metadata: { name },
        spec: { type: 'LoadBalancer', ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] },
      },
    });
    expect(svc.spec?.clusterIP).toMatch(/^10\.0\.0\.\d+$/);
    expect(svc.spec?.ports?.[0]?.nodePort).toBeGreaterThan(0);

    // status through the main resource is ignored ...
    await core.patchNamespacedService(
      { name, namespace, body: { status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect((await core.readNamespacedService({ name, namespace })).status?.loadBalancer?.ingress).toBeUndefined();
    // ... and applied through /status.
    await core.patchNamespacedServiceStatus(
      { name, namespace, body: { status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const read = await core.readNamespacedServiceStatus({ name, namespace });
    expect(read.status?.loadBalancer?.ingress?.map((i) => i.ip)).toEqual(['192.0.2.10']);

    const all = await core.listServiceForAllNamespaces({ fieldSelector: `metadata.namespace=${namespace}` });
    expect(all.items.map((s) => s.metadata?.name)).toEqual([name]);
  });

  it('Lease round trip with MicroTime, and optimistic concurrency on replace', async () => {
    const coord = cp().kubeConfig.makeApiClient(CoordinationV1Api);
    const namespace = 'kube-system';
    const name = uniq('lease');
    const acquired = new V1MicroTime(Date.now());
    const created = await coord.createNamespacedLease({
      namespace,
      body: {
        metadata: { name },
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: acquired, renewTime: acquired },
      },
    });
    // MicroTime comes back as a string with microseconds, although typed Date.
    const renew = created.spec?.renewTime as unknown as string;
    expect(renew).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(Math.abs(Date.parse(renew) - acquired.getTime())).toBeLessThan(1);

    const later = new V1MicroTime(Date.now() + 1_000);
    const replaced = await coord.replaceNamespacedLease({
      name,
      namespace,
      body: { ...created, spec: { ...created.spec, holderIdentity: 'b', renewTime: later } },
    });
    expect(replaced.spec?.holderIdentity).toBe('b');
    expect(Date.parse(replaced.spec?.renewTime as unknown as string)).toBe(later.getTime());

    // Replacing with the stale resourceVersion is a 409 Conflict.
    const stale = coord.replaceNamespacedLease({
      name,
      namespace,
      body: { ...created, spec: { ...created.spec, holderIdentity: 'c', renewTime: later } },
    });
    await expect(stale).rejects.toSatisfy((e) => statusOf(e) === 409);
  });

  it('addUser: a new user is forbidden until RBAC allows it', async () => {
    const user = await cp().addUser(uniq('alice'), ['ccm-kit:testers']);
    expect(existsSync(user.kubeconfigPath)).toBe(true);
    const asUser = user.kubeConfig.makeApiClient(CoreV1Api);
    await expect(asUser.listNode()).rejects.toSatisfy((e) => statusOf(e) === 403);

    const rbac = cp().kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const role = uniq('node-reader');
    await rbac.createClusterRole({
      body: {
        metadata: { name: role },
        rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }],
      },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'ccm-kit:testers' }],
      },
    });
    await eventually(() => asUser.listNode());
    // Still nothing beyond the role.
    await expect(asUser.deleteNode({ name: 'whatever' })).rejects.toSatisfy((e) => statusOf(e) === 403);
    await expect(cp().addUser('')).rejects.toThrow(/name must be a non-empty string/);
  });

  it('restarting kube-apiserver ends a running watch; resuming from the last resourceVersion is answered', async () => {
    const core = cp().kubeConfig.makeApiClient(CoreV1Api);
    const first = await core.createNode({ body: node(uniq('rw-a')) });
    const watch = await collectWatch(cp(), '/api/v1/nodes', first.metadata!.resourceVersion!);
    const second = await core.createNode({ body: node(uniq('rw-b')) });
    await eventually(async () => expect(watch.events.map((e) => e.name)).toContain(second.metadata!.name));
    const lastRv = watch.events.at(-1)!.rv;

    const pidBefore = cp().pids().apiServer;
    const restarting = cp().restartApiServer({ downMs: 500 });
    // The watch ends (error or clean close) while the server goes down.
    await expect(Promise.race([watch.ended.then(() => 'ended'), restarting.then(() => 'restarted')])).resolves.toBe(
      'ended',
    );
    await restarting;
    expect(cp().pids().apiServer).toBeDefined();
    expect(cp().pids().apiServer).not.toBe(pidBefore);
    expect(alive(pidBefore!)).toBe(false);

    // With the watch cache on (the default, as in real clusters) the restarted server's cache starts at
    // the current revision, so a resume from an older RV may get 410 Expired: the client must relist
    // (the --watch-cache=false test below shows a resume that etcd serves directly).
    const third = await core.createNode({ body: node(uniq('rw-c')) });
    const resumed = await collectWatch(cp(), '/api/v1/nodes', lastRv);
    await eventually(async () => expect(resumed.events.length).toBeGreaterThan(0));
    const firstEvent = resumed.events[0]!;
    if (firstEvent.type === 'ERROR') {
      expect(firstEvent.name).toBeUndefined();
      const list = await core.listNode({ labelSelector: `ccm-kit.test/run=${run}` });
      expect(list.items.map((n) => n.metadata?.name)).toContain(third.metadata!.name);
      const rewatch = await collectWatch(cp(), '/api/v1/nodes', list.metadata!.resourceVersion!);
      const fourth = await core.createNode({ body: node(uniq('rw-d')) });
      await eventually(async () => expect(rewatch.events.map((e) => e.name)).toContain(fourth.metadata!.name));
      rewatch.abort();
    } else {
      await eventually(async () => expect(resumed.events.map((e) => e.name)).toContain(third.metadata!.name));
    }
    resumed.abort();
  });

  it('stopApiServer/startApiServer cut the API off and bring it back on the same URL', async () => {
    const core = cp().kubeConfig.makeApiClient(CoreV1Api);
    const server = cp().server;
    await cp().stopApiServer();
    expect(cp().pids().apiServer).toBeUndefined();
    await expect(core.listNamespace()).rejects.toThrow();
    await cp().startApiServer();
    expect(cp().server).toBe(server);
    expect((await core.listNamespace()).items.length).toBeGreaterThan(0);
  });

  it('a graceful restart (SIGTERM) with no watch open ends well within its grace period', async () => {
    const core = cp().kubeConfig.makeApiClient(CoreV1Api);
    const before = cp().pids().apiServer!;
    const started = Date.now();
    await cp().restartApiServer({ graceMs: 30_000 });
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(alive(before)).toBe(false);
    expect((await core.listNamespace()).items.length).toBeGreaterThan(0);
    await expect(cp().restartApiServer({ downMs: -1 })).rejects.toThrow(/downMs must be a non-negative number of ms/);
    await expect(cp().stopApiServer({ graceMs: Number.NaN })).rejects.toThrow(/graceMs must be/);
  });

  it('restartEtcd keeps the data', async () => {
    const core = cp().kubeConfig.makeApiClient(CoreV1Api);
    const name = uniq('persist');
    await core.createNode({ body: node(name) });
    const etcdBefore = cp().pids().etcd;
    await cp().restartEtcd({ downMs: 200 });
    expect(cp().pids().etcd).not.toBe(etcdBefore);
    const got = await eventually(() => core.readNode({ name }));
    expect(got.metadata?.name).toBe(name);
  });
});

describe('startControlPlane with extra flags (--watch-cache=false)', () => {
  const cp = useControlPlane({
    apiServerFlags: { 'service-cluster-ip-range': '10.96.0.0/24', 'watch-cache': 'false' },
  });

  it('applies extra kube-apiserver flags', async () => {
    const core = cp().kubeConfig.makeApiClient(CoreV1Api);
    const svc = await core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name: 'flags' }, spec: { ports: [{ port: 80 }] } },
    });
    expect(svc.spec?.clusterIP).toMatch(/^10\.96\.0\.\d+$/);
  });

  it('a watch resumed from the last resourceVersion after an API server restart delivers what it missed', async () => {
    const core = cp().kubeConfig.makeApiClient(CoreV1Api);
    const first = await core.createNode({ body: node(uniq('wc-a')) });
    const watch = await collectWatch(cp(), '/api/v1/nodes', first.metadata!.resourceVersion!);
    const second = await core.createNode({ body: node(uniq('wc-b')) });
    await eventually(async () => expect(watch.events.map((e) => e.name)).toContain(second.metadata!.name));
    const lastRv = watch.events.at(-1)!.rv;

    await cp().stopApiServer();
    await watch.ended;
    await cp().startApiServer();
    const missed = await core.createNode({ body: node(uniq('wc-c')) });

    const resumed = await collectWatch(cp(), '/api/v1/nodes', lastRv);
    await eventually(async () => expect(resumed.events.map((e) => e.name)).toContain(missed.metadata!.name));
    const forNodes = resumed.events.filter((e) => e.name?.startsWith('wc-'));
    expect(forNodes.map((e) => `${e.type} ${e.name}`)).toEqual([`ADDED ${missed.metadata!.name}`]);
    expect(resumed.events.some((e) => e.type === 'ERROR')).toBe(false);
    resumed.abort();
  });

  it('stop() leaves no process, temp dir or kubeconfig behind, and is idempotent', async () => {
    const pids = cp().pids();
    expect(pids.etcd).toBeDefined();
    expect(pids.apiServer).toBeDefined();
    expect(alive(pids.etcd!) && alive(pids.apiServer!)).toBe(true);
    const user = await cp().addUser('bob');
    expect(existsSync(cp().dir)).toBe(true);

    await cp().stop();
    expect(alive(pids.etcd!)).toBe(false);
    expect(alive(pids.apiServer!)).toBe(false);
    expect(cp().pids()).toEqual({});
    expect(existsSync(cp().dir)).toBe(false);
    expect(existsSync(cp().kubeconfigPath)).toBe(false);
    expect(existsSync(user.kubeconfigPath)).toBe(false);
    await cp().stop(); // idempotent (afterAll calls it again too)
    await expect(cp().addUser('carol')).rejects.toThrow(/stopped/);
    await expect(cp().restartApiServer()).rejects.toThrow(/stopped/);
  });
});
