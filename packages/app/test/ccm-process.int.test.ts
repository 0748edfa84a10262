/**
 * The cloud-controller-manager as a process: a provider binary built with ccm-kit (the minimal
 * example) runs against a real kube-apiserver as a least-privilege user bound only to docs/deploy/rbac.yaml,
 * initializes Nodes, serves a LoadBalancer Service, elects one leader among replicas, hands over on a kill,
 * releases the lease on SIGTERM, serves health and metrics, and rejects bad flags and configs with exit 1.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ControlPlane, type ControlPlaneUser, isGone } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoordinationV1Api, CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyManifest,
  clientCertOf,
  freePort,
  httpsGet,
  metricsReaderToken,
  nonResourceReaderToken,
  type RunningProcess,
  repoRoot,
  startProcess,
} from './ccm-harness.js';

const MAIN = join(repoRoot, 'examples/minimal/dist/main.js');
const SA_USER = 'system:serviceaccount:kube-system:cloud-controller-manager';

let cp: ControlPlane;
let user: ControlPlaneUser;
let core: CoreV1Api;
let dir: string;
let cloudConfig: string;
let token: string;
const running: RunningProcess[] = [];
const controlPlane = useControlPlane();

beforeAll(async () => {
  cp = controlPlane();
  core = cp.kubeConfig.makeApiClient(CoreV1Api);
  await applyManifest(cp.kubeConfig, join(repoRoot, 'docs/deploy/rbac.yaml'));
  token = await metricsReaderToken(cp.kubeConfig);
  user = await cp.addUser(SA_USER, ['system:serviceaccounts', 'system:serviceaccounts:kube-system']);
  dir = await mkdtemp(join(tmpdir(), 'ccm-app-'));
  cloudConfig = join(dir, 'cloud.yaml');
  await writeFile(
    cloudConfig,
    [
      'machines:',
      '  - { name: app-node-a, id: a1, zone: zone-1, region: region-1, type: small, address: 10.0.0.11 }',
      '  - { name: app-node-b, id: b2, zone: zone-2, region: region-1, type: large, address: 10.0.0.12 }',
      'loadBalancerAddresses: [203.0.113.10, 203.0.113.11]',
    ].join('\n'),
  );
}, 120_000);

afterAll(async () => {
  for (const p of running) p.child.kill('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function startCcm(extra: string[] = []): Promise<{ proc: RunningProcess; port: number }> {
  const port = await freePort();
  const proc = startProcess(MAIN, [
    '--cloud-provider=minimal',
    `--cloud-config=${cloudConfig}`,
    `--kubeconfig=${user.kubeconfigPath}`,
    `--secure-port=${port}`,
    '--bind-address=127.0.0.1',
    '--leader-elect-lease-duration=4s',
    '--leader-elect-renew-deadline=3s',
    '--leader-elect-retry-period=500ms',
    '--node-monitor-period=1s',
    ...extra,
  ]);
  running.push(proc);
  await eventuallyValue(async () => (await httpsGet(port, '/healthz')).status === 200, {
    what: 'the secure port to answer',
    timeoutMs: 30_000,
  });
  return { proc, port };
}

async function registerNode(name: string): Promise<void> {
  // As a kubelet with --cloud-provider=external registers: the uninitialized taint, no providerID.
  await core.createNode({
    body: {
      metadata: { name, labels: { 'kubernetes.io/hostname': name } },
      spec: {
        taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' }],
      },
    },
  });
}

async function leaseHolder(): Promise<string> {
  const coord = cp.kubeConfig.makeApiClient(CoordinationV1Api);
  const lease = await coord.readNamespacedLease({
    name: 'cloud-controller-manager',
    namespace: 'kube-system',
  });
  return lease.spec?.holderIdentity ?? '';
}

describe('a provider binary as a least-privilege process', () => {
  let port: number;
  let proc: RunningProcess;

  it('initializes a Node with only the shipped RBAC', async () => {
    ({ proc, port } = await startCcm());
    await registerNode('app-node-a');
    const node = await eventuallyValue(
      async () => {
        const n: V1Node = await core.readNode({ name: 'app-node-a' });
        const tainted = n.spec?.taints?.some((t) => t.key === 'node.cloudprovider.kubernetes.io/uninitialized');
        return n.spec?.providerID && !tainted && n.status?.addresses?.length ? n : undefined;
      },
      { what: 'app-node-a to be initialized', timeoutMs: 45_000 },
    );
    expect(node.spec?.providerID).toBe('minimal://a1');
    expect(node.metadata?.labels).toMatchObject({
      'topology.kubernetes.io/zone': 'zone-1',
      'topology.kubernetes.io/region': 'region-1',
      'node.kubernetes.io/instance-type': 'small',
      'failure-domain.beta.kubernetes.io/zone': 'zone-1',
      'beta.kubernetes.io/instance-type': 'small',
    });
    expect(node.status?.addresses).toEqual(expect.arrayContaining([{ type: 'InternalIP', address: '10.0.0.11' }]));
    expect(proc.output()).not.toMatch(/forbidden/i);
  }, 90_000);

  it('serves a LoadBalancer Service: ingress IP and finalizer', async () => {
    await core.createNamespace({ body: { metadata: { name: 'app-lb' } } });
    await core.createNamespacedService({
      namespace: 'app-lb',
      body: {
        metadata: { name: 'web' },
        spec: { type: 'LoadBalancer', ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] },
      },
    });
    const svc = await eventuallyValue(async () => {
      const s = await core.readNamespacedService({ name: 'web', namespace: 'app-lb' });
      return s.status?.loadBalancer?.ingress?.length ? s : undefined;
    }, 'the Service ingress');
    expect(svc.status?.loadBalancer?.ingress?.[0]?.ip).toBe('203.0.113.10');
    expect(svc.metadata?.finalizers).toContain('service.kubernetes.io/load-balancer-cleanup');
    await core.deleteNamespacedService({ name: 'web', namespace: 'app-lb' });
    await eventuallyValue(
      () => isGone(core.readNamespacedService({ name: 'web', namespace: 'app-lb' })),
      'the Service to be released and deleted',
    );
    expect(proc.output()).not.toMatch(/forbidden/i);
  }, 90_000);

  it('answers /healthz, /readyz and /metrics with upstream metric names', async () => {
    expect((await httpsGet(port, '/healthz')).status).toBe(200);
    const verbose = await httpsGet(port, '/healthz?verbose');
    expect(verbose.body).toContain('[+]leaderElection ok');
    expect(verbose.body).toContain('[+]cloud-node-controller ok');
    expect((await httpsGet(port, '/readyz')).status).toBe(200);
    expect((await httpsGet(port, '/metrics')).status).toBe(403); // anonymous
    expect((await httpsGet(port, '/metrics', 'not-a-token')).status).toBe(401);
    // A client certificate signed by the CA from kube-system/extension-apiserver-authentication identifies its user.
    const byCert = await httpsGet(port, '/configz', undefined, clientCertOf(user.kubeConfig));
    expect(byCert.status).toBe(403);
    expect(JSON.parse(byCert.body)).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: `forbidden: User "${SA_USER}" cannot get path "/configz"`,
    });
    // Served next to /metrics, as upstream.
    expect((await httpsGet(port, '/metrics/slis', token)).body).toMatch(
      /kubernetes_healthcheck\{name="cloud-node-controller",type="healthz"\} 1/,
    );
    const metrics = (await httpsGet(port, '/metrics', token)).body;
    expect(metrics).toMatch(/workqueue_adds_total\{name="service"\}/);
    expect(metrics).toMatch(/workqueue_depth\{name="Nodes"\}/);
    expect(metrics).toMatch(/leader_election_master_status\{name="cloud-controller-manager"\} 1/);
    expect(metrics).toMatch(/rest_client_requests_total\{/);
    expect(metrics).toMatch(/running_managed_controllers\{name="service",manager="cloud-controller-manager"\} 1/);
    expect(metrics).toMatch(/running_managed_controllers\{name="cloud-node",manager="cloud-controller-manager"\} 1/);
  });

  it('--profiling: /debug/pprof/profile and /debug/pprof/heap answer V8 profiles, behind the /metrics authorization', async () => {
    // A heap snapshot blocks the process; on a loaded machine longer than the 3 s renew deadline, which would
    // depose the leader the next tests need (docs/decisions/0052-fenced-leader-exits.md). A replica without
    // leader election and without controllers serves the same endpoints.
    const { proc: profiled, port } = await startCcm(['--leader-elect=false', '--controllers=-cloud-node-controller']);
    expect((await httpsGet(port, '/debug/pprof/profile?seconds=1')).status).toBe(403); // anonymous
    expect((await httpsGet(port, '/debug/pprof/heap', 'not-a-token')).status).toBe(401);
    // The same authorization as /metrics: a SubjectAccessReview for the path, which the metrics reader lacks.
    expect((await httpsGet(port, '/debug/pprof/heap', token)).status).toBe(403);
    const pprof = await nonResourceReaderToken(cp.kubeConfig, 'pprof-reader', ['/debug/pprof/*']);
    const profile = await httpsGet(port, '/debug/pprof/profile?seconds=1', pprof);
    expect(profile.status).toBe(200);
    expect((JSON.parse(profile.body) as { nodes: unknown[] }).nodes.length).toBeGreaterThan(0);
    const heap = await httpsGet(port, '/debug/pprof/heap', pprof);
    expect(heap.status).toBe(200);
    expect((JSON.parse(heap.body) as { snapshot: { node_count: number } }).snapshot.node_count).toBeGreaterThan(1000);
    profiled.child.kill('SIGTERM');
    await profiled.exited;
  }, 60_000);

  it('a standby replica runs no controllers; killing the leader hands over within the lease duration', async () => {
    const standby = await startCcm();
    const first = await leaseHolder();
    expect(first).not.toBe('');
    const standbyMetrics = (await httpsGet(standby.port, '/metrics', token)).body;
    expect(standbyMetrics).not.toMatch(/running_managed_controllers\{[^}]*\} 1/);
    expect(standbyMetrics).toMatch(/leader_election_master_status\{name="cloud-controller-manager"\} 0/);
    const killedAt = Date.now();
    proc.child.kill('SIGKILL');
    await proc.exited;
    const next = await eventuallyValue(
      async () => {
        const h = await leaseHolder();
        return h && h !== first ? h : undefined;
      },
      { what: 'a new leader', timeoutMs: 15_000 },
    );
    const handover = Date.now() - killedAt;
    expect(next).not.toBe(first);
    expect(handover).toBeLessThan(4_000 + 3_000); // lease duration plus retry jitter
    // The new leader initializes a Node that joins now.
    await registerNode('app-node-b');
    await eventuallyValue(
      async () => {
        const n = await core.readNode({ name: 'app-node-b' });
        return n.spec?.providerID === 'minimal://b2';
      },
      { what: 'app-node-b to be initialized by the new leader', timeoutMs: 30_000 },
    );

    // SIGTERM releases the lease at once and exits 0.
    standby.proc.child.kill('SIGTERM');
    const code = await standby.proc.exited;
    expect(code).toBe(0);
    expect(await leaseHolder()).toBe('');
  }, 120_000);

  it('a renew deadline with sub-millisecond precision (3.0005s) leads and renews (used to exit 1 after acquiring)', async () => {
    const fractional = await startCcm(['--leader-elect-renew-deadline=3.0005s']);
    const coord = cp.kubeConfig.makeApiClient(CoordinationV1Api);
    const renewTime = async () =>
      String(
        (await coord.readNamespacedLease({ name: 'cloud-controller-manager', namespace: 'kube-system' })).spec
          ?.renewTime,
      );
    await eventuallyValue(async () => (await leaseHolder()) !== '', {
      what: 'the lease to be held',
      timeoutMs: 15_000,
    });
    const seen = new Set<string>([await renewTime()]);
    await eventuallyValue(async () => seen.add(await renewTime()).size >= 4, {
      what: 'three renewals',
      timeoutMs: 15_000,
    });
    expect(fractional.proc.child.exitCode).toBeNull();
    fractional.proc.child.kill('SIGTERM');
    expect(await fractional.proc.exited).toBe(0);
  }, 60_000);
});

describe('bad input', () => {
  it('an unknown flag gives one message and exit status 1', async () => {
    const p = startProcess(MAIN, ['--cloud-provider=minimal', '--bogus=1']);
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('unknown flag: --bogus');
  });

  it('an invalid flag value names the flag', async () => {
    const p = startProcess(MAIN, ['--cloud-provider=minimal', '--node-monitor-period=5']);
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('invalid argument "5" for "--node-monitor-period" flag');
  });

  it('values the configuration step rejects exit 1 naming the flag, before the provider starts', async () => {
    const cases: [string, string][] = [
      ['--leader-elect-lease-duration=-15s', '--leader-elect-lease-duration must be greater than zero'],
      ['--leader-elect-renew-deadline=-1s', '--leader-elect-renew-deadline must be greater than zero'],
      ['--concurrent-service-syncs=-1', '--concurrent-service-syncs must be a positive number'],
      ['--bind-address=not-an-ip', 'invalid argument "not-an-ip" for "--bind-address" flag: failed to parse IP'],
    ];
    const procs = cases.map(([flag]) =>
      startProcess(MAIN, [
        '--cloud-provider=minimal',
        `--cloud-config=${cloudConfig}`,
        `--kubeconfig=${user.kubeconfigPath}`,
        flag,
      ]),
    );
    for (const [i, p] of procs.entries()) {
      expect(await p.exited).toBe(1);
      expect(p.output()).toContain(cases[i]![1]);
      expect(p.output()).not.toContain('Starting cloud-controller-manager');
    }
  });

  it('a bad --cloud-config names the provider and the problem', async () => {
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'machines: 3\n');
    const p = startProcess(MAIN, [
      '--cloud-provider=minimal',
      `--cloud-config=${bad}`,
      `--kubeconfig=${user.kubeconfigPath}`,
    ]);
    expect(await p.exited).toBe(1);
    expect(p.output()).toMatch(/could not init cloud provider "minimal".*"machines" must be a list/);
  });

  it('a missing --cloud-config file names the file', async () => {
    const p = startProcess(MAIN, ['--cloud-provider=minimal', `--cloud-config=${join(dir, 'nope.yaml')}`]);
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('nope.yaml');
  });

  it('--cloud-provider=external and an unknown provider are clear errors', async () => {
    const ext = startProcess(MAIN, ['--cloud-provider=external']);
    expect(await ext.exited).toBe(1);
    expect(ext.output()).toContain('--cloud-provider=external names no provider');
    const unknown = startProcess(MAIN, ['--cloud-provider=nope']);
    expect(await unknown.exited).toBe(1);
    expect(unknown.output()).toContain('unknown cloud provider "nope"');
  });
});

describe('--use-service-account-credentials with the optional RBAC piece', () => {
  it('rbac.yaml alone does not let the manager mint controller tokens; rbac-service-account-credentials.yaml does', async () => {
    const saConfig = join(dir, 'cloud-sa.yaml');
    await writeFile(
      saConfig,
      'machines:\n  - { name: app-node-sa, id: s3, zone: zone-1, region: region-1, type: small, address: 10.0.0.13 }\n',
    );
    await registerNode('app-node-sa');
    const { proc } = await startCcm([
      `--cloud-config=${saConfig}`,
      '--leader-elect=false',
      '--controllers=cloud-node-controller',
      '--use-service-account-credentials',
    ]);
    await eventuallyValue(
      async () => /serviceaccounts[^\n]*forbidden|forbidden[^\n]*serviceaccounts/i.test(proc.output()),
      { what: 'the service-account lookup to be forbidden', timeoutMs: 30_000 },
    );
    const before = await core.readNode({ name: 'app-node-sa' });
    expect(before.spec?.providerID).toBeUndefined();
    await applyManifest(cp.kubeConfig, join(repoRoot, 'docs/deploy/rbac-service-account-credentials.yaml'));
    await eventuallyValue(
      async () => (await core.readNode({ name: 'app-node-sa' })).spec?.providerID === 'minimal://s3',
      { what: 'app-node-sa to be initialized as kube-system/node-controller', timeoutMs: 60_000 },
    );
    const sa = await core.readNamespacedServiceAccount({ name: 'node-controller', namespace: 'kube-system' });
    expect(sa.metadata?.name).toBe('node-controller');
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
  }, 150_000);
});
