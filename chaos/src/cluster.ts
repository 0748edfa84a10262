/**
 * The world the CCMs run in: a real control plane (kube-apiserver with an audit log of every write, and
 * etcd), the cuttable proxy the CCMs reach it through, one user per CCM slot bound to the shipped RBAC
 * (docs/deploy/rbac.yaml), and the mockcloud API server with one token per slot, so that every cloud call
 * and every API write names the CCM that made it.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MockCloudApiServer } from '@ccm-kit/example-mockcloud/api-server';
import { type ControlPlane, startControlPlane } from '@ccm-kit/testing';
import {
  KubeConfig,
  KubernetesObjectApi,
  type KubernetesObject,
  loadAllYaml,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import { type CuttableProxy, startCuttableProxy } from './tcp-proxy.ts';

const repoRoot = new URL('../../', import.meta.url).pathname;

/**
 * Writes are audited: they are what the single-writer invariant is about (and the lease history). The CCMs'
 * lists and watches of Nodes and Services too, without bodies: when they start again after an outage is the
 * informers' resync time.
 */
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  # Lease writes with their body: the holder each write names gives the lease history.
  - level: Request
    resources: [{ group: "coordination.k8s.io", resources: ["leases"] }]
    verbs: ["create", "update", "patch"]
  - level: Metadata
    verbs: ["create", "update", "patch", "delete", "deletecollection"]
  - level: Metadata
    verbs: ["list", "watch"]
    resources: [{ group: "", resources: ["nodes", "services"] }]
  - level: None
`;

export interface Cluster {
  cp: ControlPlane;
  proxy: CuttableProxy;
  cloud: MockCloudApiServer;
  auditLogPath: string;
  /** kubeconfig file of slot `i` (its user, through the proxy). */
  kubeconfigPaths: string[];
  /** Audit user name and cloud caller name of slot `i`. */
  slotName(i: number): string;
  /** The slot of an audit user name or cloud caller name (undefined: not a CCM). */
  slotOf(name: string): number | undefined;
  stop(): Promise<void>;
}

export async function startCluster(opts: { dir: string; slots: number; random: () => number }): Promise<Cluster> {
  await mkdir(opts.dir, { recursive: true });
  const policy = join(opts.dir, 'audit-policy.yaml');
  const auditLogPath = join(opts.dir, 'audit.log');
  await writeFile(policy, auditPolicy);
  const cp = await startControlPlane({
    // From a fresh clone the binaries are built once with tools/envtest (needs Go), as the test setup does.
    build: true,
    apiServerFlags: { 'audit-policy-file': policy, 'audit-log-path': auditLogPath, 'audit-log-maxsize': '1000' },
  });
  const slotName = (i: number) => `chaos-ccm-${i}`;
  const cloud = await MockCloudApiServer.start({
    tokens: Array.from({ length: opts.slots }, (_, i) => ({ token: `${slotName(i)}-token`, name: slotName(i) })),
    random: opts.random,
    requestLogSize: 5_000_000,
  });
  const proxy = await startCuttableProxy(cp.server);
  await applyManifest(cp.kubeConfig, join(repoRoot, 'docs/deploy/rbac.yaml'));
  const rbac = cp.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  const kubeconfigPaths: string[] = [];
  for (let i = 0; i < opts.slots; i++) {
    const user = await cp.addUser(slotName(i));
    const subjects = [{ kind: 'User', name: slotName(i), apiGroup: 'rbac.authorization.k8s.io' }];
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: slotName(i) },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'system:cloud-controller-manager',
        },
        subjects,
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: 'kube-system',
      body: {
        metadata: { name: slotName(i) },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'Role',
          name: 'system:cloud-controller-manager:leader-election',
        },
        subjects,
      },
    });
    kubeconfigPaths.push(
      await proxiedKubeconfig(user.kubeConfig, proxy.url, join(opts.dir, `${slotName(i)}.kubeconfig`)),
    );
  }
  return {
    cp,
    proxy,
    cloud,
    auditLogPath,
    kubeconfigPaths,
    slotName,
    slotOf(name) {
      const m = /^chaos-ccm-(\d+)$/.exec(name);
      return m ? Number(m[1]) : undefined;
    },
    async stop() {
      await proxy.close();
      await cloud.close();
      await cp.stop();
    },
  };
}

async function applyManifest(kc: KubeConfig, path: string): Promise<void> {
  const api = KubernetesObjectApi.makeApiClient(kc);
  for (const obj of loadAllYaml(await readFile(path, 'utf8')) as (KubernetesObject | null)[]) {
    if (obj) await api.create(obj);
  }
}

/** A kubeconfig file for `kc`'s user that reaches the API server through the proxy. */
async function proxiedKubeconfig(kc: KubeConfig, server: string, path: string): Promise<string> {
  const cfg = JSON.parse(kc.exportConfig()) as { clusters: { cluster: { server: string } }[] };
  for (const c of cfg.clusters) c.cluster.server = server;
  await writeFile(path, JSON.stringify(cfg));
  return path;
}
