/**
 * The Helm chart `npm create ccm-kit` writes (renderHelmChart), rendered by a real helm (tools/helm builds
 * it from its Go module) for several sets of values: `helm lint --strict` passes, `helm template` gives
 * exactly the objects `ccm-kit manifests` renders for the same values (decision 0071), and those objects
 * pass `kubectl apply --dry-run=server` on a real kube-apiserver in the release namespace (kube-system, or
 * cloud-system for `helm install -n cloud-system`) labelled for Pod Security "restricted", each workload's Pod
 * template also applied as a Pod. The PodMonitor kind is unknown to a bare kube-apiserver: the test installs a
 * minimal CRD for it (fixtures/podmonitor-crd.yaml) first. Installed in cloud-system, the chart's RBAC is
 * applied for real, the API server's RBAC authorizer grants the ServiceAccount in cloud-system every request
 * the CCM makes, and the minimal example's CCM running as that ServiceAccount serves its secure port, takes
 * the Lease and initializes a Node (decision 0425).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ControlPlane } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { renderHelmChart, renderManifests } from '../src/manifests/render.js';
import { CCM_TOLERATIONS, defaultManifestValues, type ManifestValues } from '../src/manifests/values.js';
// The app's process harness: the CCM as a child process, its secure port.
import { freePort, httpsGet, repoRoot, type RunningProcess, startProcess } from '../../app/test/ccm-harness.js';
import { ensureHelm } from './helm.js';
import { applyServerDryRun, kubectl } from './kubectl.js';
import { labelRestricted, podOf } from './pod-security.js';

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
  subjects?: Array<{ kind: string; name: string; namespace?: string }>;
}
interface PodSpec {
  hostNetwork: boolean;
  dnsPolicy: string;
  priorityClassName: string;
  nodeSelector: Record<string, string>;
  tolerations: unknown[];
  containers: Array<{ image: string; args: string[]; env: unknown[]; resources: unknown }>;
}

const controlPlane = useControlPlane();
const apply = (yamlText: string) => applyServerDryRun(controlPlane().kubeconfigPath, yamlText);
const PROVIDER = 'mycloud';
const chartDir = mkdtempSync(join(tmpdir(), 'ccm-kit-chart-'));
let helm = '';
const running: RunningProcess[] = [];

function helmRun(args: string[]) {
  const r = spawnSync(helm, args, { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** The objects of a multi-document YAML, in a stable order (kind, namespace, name). */
function objects(yamlText: string): K8sObject[] {
  const key = (o: K8sObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  return parseAllDocuments(yamlText)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null)
    .sort((a, b) => key(a).localeCompare(key(b)));
}
const find = (objs: K8sObject[], kind: string) => objs.find((o) => o.kind === kind);
const LEASE_RBAC = 'system:cloud-controller-manager:leader-election';
const AUTH_READER_BINDING = 'system:cloud-controller-manager:apiserver-authentication-reader';
/** A namespace other than kube-system, labelled "restricted" in beforeAll. */
const OTHER_NS = 'cloud-system';

/** Every namespaced object of the CCM in `ns`, every subject naming the ServiceAccount in `ns`. */
function expectInstalledIn(objs: K8sObject[], ns: string, leaseNs: string) {
  for (const o of objs) {
    const expected =
      o.metadata.name === LEASE_RBAC
        ? leaseNs
        : o.metadata.name === AUTH_READER_BINDING
          ? 'kube-system'
          : o.kind.startsWith('Cluster')
            ? undefined
            : ns;
    expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).toBe(expected);
  }
  const subjects = objs.flatMap((o) => o.subjects ?? []);
  expect(subjects.length).toBe(4); // the lease RoleBinding, two ClusterRoleBindings, the authentication reader
  for (const s of subjects)
    expect(s).toEqual({ kind: 'ServiceAccount', name: 'cloud-controller-manager', namespace: ns });
}
const podSpecOf = (o: K8sObject | undefined) => (o?.spec?.template as { spec: PodSpec } | undefined)?.spec;

interface Variant {
  name: string;
  values: ManifestValues;
  /** `helm template -n`; `ccm-kit manifests --namespace` (default kube-system). */
  namespace?: string;
  /** helm's value arguments; default: the values as a file (`-f`). */
  helmArgs?: string[];
  /** Settings that must show in the rendered objects (helm's; `ccm-kit manifests` gives the same). */
  essentials: (objs: K8sObject[]) => void;
}

const base = defaultManifestValues(PROVIDER);
const VARIANTS: Variant[] = [
  {
    name: 'defaults, the image tag set on the command line (as docs/getting-started.md installs it)',
    values: { ...base, image: { ...base.image, tag: 'v0.2.0' } },
    helmArgs: ['--set', 'image.tag=v0.2.0'],
    essentials: (objs) => {
      const d = find(objs, 'Deployment');
      expect(d?.spec?.replicas).toBe(2);
      const pod = podSpecOf(d)!;
      expect(pod.containers[0]!.image).toBe(`registry.example.com/${PROVIDER}/cloud-controller-manager:v0.2.0`);
      expect(pod.containers[0]!.args).toEqual(
        expect.arrayContaining([
          `--cloud-provider=${PROVIDER}`,
          '--leader-elect=true',
          `--cloud-config=/etc/${PROVIDER}/cloud.yaml`,
        ]),
      );
      expect(pod.hostNetwork).toBe(false);
      expect(objs.map((o) => o.kind)).not.toContain('DaemonSet');
      expect(objs.map((o) => o.kind)).not.toContain('PodMonitor');
    },
  },
  {
    name: 'HA: three replicas with leader election tuned',
    values: {
      ...base,
      replicaCount: 3,
      args: { ...base.args, 'leader-elect-lease-duration': '30s', 'leader-elect-renew-deadline': '20s' },
    },
    essentials: (objs) => {
      const d = find(objs, 'Deployment');
      expect(d?.spec?.replicas).toBe(3);
      expect(podSpecOf(d)!.containers[0]!.args).toEqual(
        expect.arrayContaining([
          '--leader-elect=true',
          '--leader-elect-lease-duration=30s',
          '--leader-elect-renew-deadline=20s',
        ]),
      );
    },
  },
  {
    name: 'DaemonSet on the control-plane Nodes',
    values: defaultManifestValues(PROVIDER, 'DaemonSet'),
    essentials: (objs) => {
      expect(objs.map((o) => o.kind)).not.toContain('Deployment');
      const pod = podSpecOf(find(objs, 'DaemonSet'))!;
      expect(pod.nodeSelector).toEqual({ 'node-role.kubernetes.io/control-plane': '' });
      expect(pod.priorityClassName).toBe('system-node-critical');
      expect(pod.tolerations).toEqual(CCM_TOLERATIONS);
    },
  },
  {
    name: 'env from a Secret, extra and bare flags, resources, tolerations, nodeSelector, priorityClassName',
    values: {
      ...base,
      args: { ...base.args, 'allow-untagged-cloud': '', 'cluster-name': 'prod', 'concurrent-service-syncs': 3 },
      env: [
        { name: 'MYCLOUD_TOKEN', valueFrom: { secretKeyRef: { name: 'mycloud-api', key: 'token' } } },
        { name: 'MYCLOUD_REGION', value: 'eu-1' },
      ],
      resources: { requests: { cpu: '200m', memory: '192Mi' }, limits: { cpu: '1', memory: '384Mi' } },
      tolerations: [...CCM_TOLERATIONS, { key: 'dedicated', operator: 'Equal', value: 'infra', effect: 'NoSchedule' }],
      nodeSelector: { 'kubernetes.io/os': 'linux', 'node.example.com/pool': 'infra' },
      priorityClassName: 'cloud-infra',
    },
    essentials: (objs) => {
      const pod = podSpecOf(find(objs, 'Deployment'))!;
      const c = pod.containers[0]!;
      expect(c.args).toEqual(
        expect.arrayContaining(['--allow-untagged-cloud', '--cluster-name=prod', '--concurrent-service-syncs=3']),
      );
      expect(c.env).toContainEqual({
        name: 'MYCLOUD_TOKEN',
        valueFrom: { secretKeyRef: { name: 'mycloud-api', key: 'token' } },
      });
      expect(c.resources).toEqual({
        requests: { cpu: '200m', memory: '192Mi' },
        limits: { cpu: '1', memory: '384Mi' },
      });
      expect(pod.tolerations).toContainEqual({
        key: 'dedicated',
        operator: 'Equal',
        value: 'infra',
        effect: 'NoSchedule',
      });
      expect(pod.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux', 'node.example.com/pool': 'infra' });
      expect(pod.priorityClassName).toBe('cloud-infra');
    },
  },
  {
    name: 'monitoring: the metrics Service and a PodMonitor',
    values: { ...base, monitoring: { enabled: true, podMonitor: true } },
    essentials: (objs) => {
      expect(objs.find((o) => o.kind === 'Service')?.metadata.name).toBe('cloud-controller-manager-metrics');
      expect(find(objs, 'PodMonitor')?.apiVersion).toBe('monitoring.coreos.com/v1');
    },
  },
  {
    name: `helm install -n ${OTHER_NS}: every CCM object and RBAC subject there, the Lease RBAC and authentication reader in kube-system`,
    values: { ...base, monitoring: { enabled: true, podMonitor: true } },
    namespace: OTHER_NS,
    essentials: (objs) => expectInstalledIn(objs, OTHER_NS, 'kube-system'),
  },
  {
    name: `helm install -n ${OTHER_NS} with the Lease there too (--leader-elect-resource-namespace): the Lease RBAC follows`,
    values: { ...base, args: { ...base.args, 'leader-elect-resource-namespace': OTHER_NS } },
    namespace: OTHER_NS,
    essentials: (objs) => {
      expectInstalledIn(objs, OTHER_NS, OTHER_NS);
      expect(podSpecOf(find(objs, 'Deployment'))!.containers[0]!.args).toContain(
        `--leader-elect-resource-namespace=${OTHER_NS}`,
      );
    },
  },
];

/** `helm template` of the chart with the variant's values, checked by `helm lint --strict` first. */
function renderChart(v: Variant): string {
  let args = v.helmArgs;
  if (!args) {
    const file = join(chartDir, `values-${v.name.replace(/\W+/g, '-').slice(0, 40)}.yaml`);
    writeFileSync(file, stringify(v.values));
    args = ['-f', file];
  }
  const lint = helmRun(['lint', '--strict', chartDir, ...args]);
  expect(lint.status, lint.stdout + lint.stderr).toBe(0);
  const r = helmRun(['template', 'ccm', chartDir, '--namespace', v.namespace ?? 'kube-system', ...args]);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

beforeAll(async () => {
  // Built once (a few minutes cold, see tools/helm/README.md), then found in the cache at once.
  helm = await ensureHelm();
  for (const [file, content] of Object.entries(renderHelmChart(base))) {
    mkdirSync(dirname(join(chartDir, file)), { recursive: true });
    writeFileSync(join(chartDir, file), content);
  }
  const kubeconfig = controlPlane().kubeconfigPath;
  expect(labelRestricted(kubeconfig, 'kube-system').stderr).toBe('');
  const ns = kubectl(kubeconfig, ['create', 'namespace', OTHER_NS]);
  expect(ns.status, ns.stderr).toBe(0);
  expect(labelRestricted(kubeconfig, OTHER_NS).stderr).toBe('');
  const crd = kubectl(kubeconfig, [
    'apply',
    '-f',
    fileURLToPath(new URL('fixtures/podmonitor-crd.yaml', import.meta.url)),
  ]);
  expect(crd.status, crd.stderr).toBe(0);
  const established = kubectl(kubeconfig, [
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd/podmonitors.monitoring.coreos.com',
  ]);
  expect(established.status, established.stderr).toBe(0);
  const pc = kubectl(kubeconfig, ['create', 'priorityclass', 'cloud-infra', '--value=1000000']);
  expect(pc.status, pc.stderr).toBe(0);
}, 45 * 60_000);

afterAll(() => {
  for (const p of running) p.child.kill('SIGKILL');
  rmSync(chartDir, { recursive: true, force: true });
});

/**
 * The minimal example's CCM (a provider binary built with ccm-kit) as the ServiceAccount `user` of namespace
 * `ns`, with only the chart's RBAC: it serves its secure port (delegated authentication reads the client CA
 * from kube-system), takes the Lease in kube-system and initializes a Node, as packages/app's least-privilege
 * process test does for docs/deploy/rbac.yaml in kube-system.
 */
async function expectCcmWorksAs(cp: ControlPlane, user: string, ns: string): Promise<void> {
  const kubeconfig = cp.kubeconfigPath;
  const identity = await cp.addUser(user, ['system:serviceaccounts', `system:serviceaccounts:${ns}`]);
  const cloudConfig = join(chartDir, 'minimal-cloud.yaml');
  writeFileSync(
    cloudConfig,
    'machines:\n  - { name: chart-ns-node, id: n1, zone: zone-1, region: region-1, type: small, address: 10.0.0.21 }\n',
  );
  const port = await freePort();
  const proc = startProcess(join(repoRoot, 'examples/minimal/dist/main.js'), [
    '--cloud-provider=minimal',
    `--cloud-config=${cloudConfig}`,
    `--kubeconfig=${identity.kubeconfigPath}`,
    `--secure-port=${port}`,
    '--bind-address=127.0.0.1',
  ]);
  running.push(proc);
  await eventuallyValue(async () => (await httpsGet(port, '/healthz').catch(() => ({ status: 0 }))).status === 200, {
    what: 'the secure port to answer',
    timeoutMs: 30_000,
  });
  const leaseHolder = () =>
    kubectl(kubeconfig, [
      '-n',
      'kube-system',
      'get',
      'lease',
      'cloud-controller-manager',
      '-o',
      'jsonpath={.spec.holderIdentity}',
    ]).stdout;
  await eventuallyValue(() => leaseHolder() !== '', {
    what: 'the Lease kube-system/cloud-controller-manager to be held',
    timeoutMs: 30_000,
  });
  // As a kubelet with --cloud-provider=external registers: the uninitialized taint, no providerID.
  const node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'chart-ns-node' },
    spec: { taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' }] },
  };
  const created = kubectl(kubeconfig, ['create', '-f', '-'], JSON.stringify(node));
  expect(created.status, created.stderr).toBe(0);
  const providerID = await eventuallyValue(
    () =>
      kubectl(kubeconfig, ['get', 'node', 'chart-ns-node', '-o', 'jsonpath={.spec.providerID}']).stdout || undefined,
    { what: 'chart-ns-node to be initialized', timeoutMs: 45_000 },
  );
  expect(providerID).toBe('minimal://n1');
  expect(proc.output()).not.toMatch(/forbidden/i);
}

describe('the Helm chart, rendered by helm', () => {
  it.each(VARIANTS)('$name: equals ccm-kit manifests and applies under Pod Security "restricted"', (v) => {
    const rendered = renderChart(v);
    const fromHelm = objects(rendered);
    expect(fromHelm).toEqual(objects(renderManifests(v.values, v.namespace)));
    v.essentials(fromHelm);

    const r = apply(rendered);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    for (const o of fromHelm) {
      const resource = `${o.kind.toLowerCase()}${o.apiVersion.includes('/') ? `.${o.apiVersion.split('/')[0]}` : ''}`;
      expect(r.stdout).toContain(`${resource}/${o.metadata.name} created (server dry run)`);
    }
    const kind = v.values.kind;
    const pod = apply(podOf(rendered, kind));
    expect(pod.stderr).toBe('');
    expect(pod.stdout).toContain('pod/ccm-pod-security-probe created (server dry run)');
  });

  it('hostNetwork: dnsPolicy Default; valid, and "restricted" rejects its Pod, as documented', () => {
    const v: Variant = { name: 'hostNetwork', values: { ...base, hostNetwork: true }, essentials: () => undefined };
    const rendered = renderChart(v);
    const fromHelm = objects(rendered);
    expect(fromHelm).toEqual(objects(renderManifests(v.values)));
    const pod = podSpecOf(find(fromHelm, 'Deployment'))!;
    expect(pod.hostNetwork).toBe(true);
    expect(pod.dnsPolicy).toBe('Default');
    const workload = apply(rendered);
    expect(workload.status, workload.stderr).toBe(0);
    expect(workload.stderr).toMatch(
      /would violate PodSecurity "restricted:latest": host namespaces \(hostNetwork=true\)/,
    );
    const probe = apply(podOf(rendered, 'Deployment'));
    expect(probe.status).not.toBe(0);
    expect(probe.stderr).toMatch(
      /forbidden: violates PodSecurity "restricted:latest": host namespaces \(hostNetwork=true\)/,
    );
  });

  it(`installed in ${OTHER_NS}, the chart's RBAC authorizes the ServiceAccount there for every request the CCM makes, and a CCM running as it does its job`, async () => {
    const kubeconfig = controlPlane().kubeconfigPath;
    const rendered = helmRun([
      'template',
      'ccm',
      chartDir,
      '--namespace',
      OTHER_NS,
      '--show-only',
      'templates/rbac.yaml',
    ]);
    expect(rendered.status, rendered.stderr).toBe(0);
    const applied = kubectl(kubeconfig, ['apply', '-f', '-'], rendered.stdout);
    expect(applied.status, applied.stderr).toBe(0);
    try {
      const canI = (user: string, args: string[]) =>
        kubectl(kubeconfig, ['auth', 'can-i', `--as=${user}`, ...args]).stdout.trim();
      const sa = `system:serviceaccount:${OTHER_NS}:cloud-controller-manager`;
      // The requests of the controllers, leader election (Lease in kube-system, upstream's default) and the
      // secure port's delegated authentication and authorization (docs/deploy/rbac.yaml, comment by comment).
      const requests = [
        ['create', 'events', '-n', 'default'],
        ['patch', 'events', '-n', 'default'],
        ...['get', 'list', 'watch', 'update', 'patch', 'delete'].map((verb) => [verb, 'nodes']),
        ['patch', 'nodes', '--subresource=status'],
        ...['get', 'list', 'watch', 'patch'].map((verb) => [verb, 'services', '-A']),
        ['patch', 'services', '--subresource=status', '-n', 'default'],
        ['create', 'leases.coordination.k8s.io', '-n', 'kube-system'],
        ['get', 'leases.coordination.k8s.io/cloud-controller-manager', '-n', 'kube-system'],
        ['update', 'leases.coordination.k8s.io/cloud-controller-manager', '-n', 'kube-system'],
        ['create', 'tokenreviews.authentication.k8s.io'],
        ['create', 'subjectaccessreviews.authorization.k8s.io'],
        ['get', 'configmaps/extension-apiserver-authentication', '-n', 'kube-system'],
      ];
      for (const r of requests) expect(`${r.join(' ')}: ${canI(sa, r)}`).toBe(`${r.join(' ')}: yes`);
      // Least privilege kept, and nothing granted to the ServiceAccount of the same name in kube-system.
      for (const [user, r] of [
        [sa, ['create', 'leases.coordination.k8s.io', '-n', OTHER_NS]],
        [sa, ['get', 'secrets', '-n', OTHER_NS]],
        ['system:serviceaccount:kube-system:cloud-controller-manager', ['update', 'nodes']],
        [
          'system:serviceaccount:kube-system:cloud-controller-manager',
          ['create', 'leases.coordination.k8s.io', '-n', 'kube-system'],
        ],
      ] as const) {
        expect(`${user} ${r.join(' ')}: ${canI(user, [...r])}`).toBe(`${user} ${r.join(' ')}: no`);
      }
      await expectCcmWorksAs(controlPlane(), sa, OTHER_NS);
    } finally {
      for (const p of running.splice(0)) p.child.kill('SIGKILL');
      // The other tests dry-run the same names and expect "created".
      const deleted = kubectl(kubeconfig, ['delete', '-f', '-'], rendered.stdout);
      expect(deleted.status, deleted.stderr).toBe(0);
    }
  });
});
