/**
 * Informer memory and sync-time benchmark (not part of `npm test`).
 *
 * Starts a real etcd + kube-apiserver, creates 1,000 then 5,000 realistic Nodes (images, conditions,
 * labels, annotations, taints, and managedFields from three field managers: about 10 KB of JSON
 * each), and for each count syncs a Node informer twice: with the default transform (strips
 * `metadata.managedFields`) and without it. For each run it prints the heap retained per cached Node
 * (heapUsed after forced GC, minus an informer over no Nodes), the LIST+store sync time, and the
 * latency of one watch event. Each configuration runs twice, alternating; the table shows the
 * lower of the two figures.
 *
 * Run after the build, with GC exposed:
 *   npx tsc -b && node --expose-gc bench/informer-memory.ts [counts, default 1000,5000]
 */

import { setVerbosity } from '@ccm-kit/runtime';
import { type ClientFactory, createClientFactory, patchOptions } from '@ccm-kit/runtime/client';
import { identityTransform, SharedInformerFactory } from '@ccm-kit/runtime/informers';
import { startControlPlane } from '@ccm-kit/testing';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with --expose-gc: node --expose-gc bench/informer-memory.ts');
  process.exit(2);
}
const counts = (process.argv[2] ?? '1000,5000').split(',').map(Number);
const LABEL = 'ccm-kit-bench';

function sha(i: number, salt: string): string {
  let h = '';
  let x = (i * 2654435761 + salt.length * 97) >>> 0;
  while (h.length < 64) {
    x = (x * 1103515245 + 12345) >>> 0;
    h += x.toString(16).padStart(8, '0');
  }
  return h.slice(0, 64);
}

const imageRepos = [
  'registry.k8s.io/kube-proxy',
  'registry.k8s.io/pause',
  'registry.k8s.io/coredns/coredns',
  'docker.io/calico/node',
  'docker.io/calico/cni',
  'quay.io/prometheus/node-exporter',
  'docker.io/library/nginx',
  'gcr.io/example-project/payments-api',
  'gcr.io/example-project/orders-worker',
  'docker.io/grafana/promtail',
  'registry.k8s.io/ingress-nginx/controller',
  'docker.io/bitnami/redis',
  'quay.io/jetstack/cert-manager-controller',
  'docker.io/fluent/fluent-bit',
  'registry.k8s.io/metrics-server/metrics-server',
  'docker.io/library/postgres',
  'ghcr.io/example/checkout-frontend',
  'docker.io/envoyproxy/envoy',
  'quay.io/cilium/cilium',
  'docker.io/library/busybox',
  'registry.example.com/team-a/batch-runner',
  'registry.example.com/team-b/search-indexer',
  'registry.example.com/team-c/recommendations',
  'docker.io/library/rabbitmq',
  'quay.io/argoproj/argocd',
  'docker.io/istio/proxyv2',
  'registry.k8s.io/sig-storage/csi-node-driver-registrar',
  'public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver',
];

/** A Node as a kubelet on a cloud VM would register it (status included: Nodes accept status on create). */
function makeNode(i: number): V1Node {
  const name = `bench-node-${String(i).padStart(5, '0')}`;
  const zone = `zone-${i % 3}`;
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const cond = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        [LABEL]: '1',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'beta.kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/instance-type': 'm5.2xlarge',
        'beta.kubernetes.io/instance-type': 'm5.2xlarge',
        'topology.kubernetes.io/region': 'region-1',
        'topology.kubernetes.io/zone': zone,
        'failure-domain.beta.kubernetes.io/region': 'region-1',
        'failure-domain.beta.kubernetes.io/zone': zone,
        'node-pool': `pool-${i % 7}`,
      },
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        'csi.volume.kubernetes.io/nodeid': JSON.stringify({
          'ebs.csi.aws.com': `i-${sha(i, 'id').slice(0, 17)}`,
        }),
        'alpha.kubernetes.io/provided-node-ip': `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      },
    },
    spec: {
      podCIDR: `10.${100 + ((i >> 8) & 63)}.${i & 255}.0/24`,
      podCIDRs: [`10.${100 + ((i >> 8) & 63)}.${i & 255}.0/24`],
      providerID: `aws:///${zone}/i-${sha(i, 'id').slice(0, 17)}`,
      taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' }],
    },
    status: {
      capacity: {
        cpu: '8',
        memory: '32386124Ki',
        pods: '110',
        'ephemeral-storage': '104845292Ki',
        'hugepages-1Gi': '0',
        'hugepages-2Mi': '0',
      },
      allocatable: {
        cpu: '7910m',
        memory: '31369292Ki',
        pods: '110',
        'ephemeral-storage': '95551679124',
        'hugepages-1Gi': '0',
        'hugepages-2Mi': '0',
      },
      conditions: [
        cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
        { type: 'Hostname', address: name },
        { type: 'InternalDNS', address: `${name}.region-1.compute.internal` },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: sha(i, 'machine').slice(0, 32),
        systemUUID: sha(i, 'uuid').slice(0, 32),
        bootID: sha(i, 'boot').slice(0, 36),
        kernelVersion: '6.8.0-1021-aws',
        osImage: 'Ubuntu 24.04.2 LTS',
        containerRuntimeVersion: 'containerd://2.0.5',
        kubeletVersion: 'v1.36.4',
        kubeProxyVersion: 'v1.36.4',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images: imageRepos.map((repo, k) => ({
        names: [`${repo}@sha256:${sha(i * 31 + k, repo)}`, `${repo}:v${1 + (k % 4)}.${(i + k) % 20}.${k}`],
        sizeBytes: 10_000_000 + ((i * 7919 + k * 104729) % 400_000_000),
      })),
    },
  };
}

async function pool<T>(items: T[], concurrency: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const x = items[next++] as T;
        await fn(x);
      }
    }),
  );
}

/** Creates Nodes [from, to) with three field managers, like kubelet + cloud-controller-manager + node-lifecycle. */
async function createNodes(core: CoreV1Api, from: number, to: number): Promise<void> {
  const idx = Array.from({ length: to - from }, (_, k) => from + k);
  await pool(idx, 24, async (i) => {
    const n = makeNode(i);
    const name = n.metadata?.name as string;
    await core.createNode({ body: n, fieldManager: 'kubelet' });
    await core.patchNode(
      {
        name,
        fieldManager: 'cloud-controller-manager',
        body: {
          metadata: {
            labels: {
              'node.kubernetes.io/cloud-initialized': 'true',
              'topology.k8s.example.com/rack': `rack-${i % 40}`,
              'topology.k8s.example.com/host-group': `hg-${i % 12}`,
              'cloud.example.com/lifecycle': i % 5 === 0 ? 'spot' : 'on-demand',
            },
          },
          spec: { taints: [] },
        },
      },
      patchOptions('strategic'),
    );
    await core.patchNodeStatus(
      {
        name,
        fieldManager: 'kube-controller-manager',
        body: {
          status: {
            conditions: [
              {
                type: 'NetworkUnavailable',
                status: 'False',
                reason: 'RouteCreated',
                message: 'RouteController created a route',
              },
            ],
          },
        },
      },
      patchOptions('strategic'),
    );
  });
}

function heap(): number {
  for (let k = 0; k < 4; k++) gc?.();
  return process.memoryUsage().heapUsed;
}

interface Run {
  count: number;
  transform: 'strip managedFields' | 'keep all';
  syncMs: number;
  heapPerNodeKiB: number;
  jsonPerNodeKiB: number;
  watchLatencyMs: number;
}

async function measure(
  clients: ClientFactory,
  core: CoreV1Api,
  count: number,
  strip: boolean,
  baseline: number,
): Promise<Run> {
  const before = heap();
  const factory = new SharedInformerFactory(clients, strip ? {} : { transform: identityTransform });
  const inf = factory.forResource<V1Node>({ path: '/api/v1/nodes', labelSelector: `${LABEL}=1` });
  const ac = new AbortController();
  const t0 = performance.now();
  factory.start(ac.signal);
  await inf.whenSynced(ac.signal);
  const syncMs = performance.now() - t0;
  if (inf.lister.size !== count) throw new Error(`expected ${count} cached Nodes, got ${inf.lister.size}`);

  // One watch event end to end: patch a Node, wait for the update notification.
  const target = inf.lister.list()[0]?.metadata?.name as string;
  const stamp = String(Date.now());
  const seen = new Promise<number>((resolve) => {
    inf.addEventHandler({
      onUpdate: (_o, n) => {
        if (n.metadata?.annotations?.bench === stamp) resolve(performance.now());
      },
    });
  });
  const w0 = performance.now();
  await core.patchNode({ name: target, body: { metadata: { annotations: { bench: stamp } } } }, patchOptions('merge'));
  const watchLatencyMs = (await seen) - w0;

  let json = 0;
  for (const n of inf.lister.list()) json += JSON.stringify(n).length;
  const after = heap();
  const run: Run = {
    count,
    transform: strip ? 'strip managedFields' : 'keep all',
    syncMs: Math.round(syncMs),
    heapPerNodeKiB: Math.round(((after - before - baseline) / count / 1024) * 10) / 10,
    jsonPerNodeKiB: Math.round((json / count / 1024) * 10) / 10,
    watchLatencyMs: Math.round(watchLatencyMs),
  };
  ac.abort();
  await factory.shutdown();
  return run;
}

/** Heap held by a running informer with an empty cache (factory, reflector, metrics): subtracted from each run. */
async function emptyOverhead(clients: ClientFactory): Promise<number> {
  const before = heap();
  const factory = new SharedInformerFactory(clients);
  const inf = factory.forResource<V1Node>({ path: '/api/v1/nodes', labelSelector: `${LABEL}=none` });
  const ac = new AbortController();
  factory.start(ac.signal);
  await inf.whenSynced(ac.signal);
  const after = heap();
  ac.abort();
  await factory.shutdown();
  return Math.max(0, after - before);
}

async function main(): Promise<void> {
  setVerbosity(0);
  const t0 = performance.now();
  const cp = await startControlPlane();
  console.log(`control plane up in ${Math.round(performance.now() - t0)} ms (${cp.server})`);
  const clients = createClientFactory({ kubeConfig: cp.kubeConfig, qps: -1, timeoutMs: 120_000 });
  const core = clients.client('bench', CoreV1Api);
  const runs: Run[] = [];
  try {
    const baseline = await emptyOverhead(clients);
    console.log(`empty-informer overhead: ${Math.round(baseline / 1024)} KiB`);
    let have = 0;
    for (const count of counts) {
      const c0 = performance.now();
      await createNodes(core, have, count);
      have = count;
      const sample = (await core.listNode({ labelSelector: `${LABEL}=1`, limit: 1 })).items[0];
      const wire = JSON.stringify({ apiVersion: 'v1', kind: 'Node', ...sample }).length;
      console.log(
        `created ${count} Nodes in ${Math.round((performance.now() - c0) / 1000)} s; one Node on the wire ≈ ${(wire / 1024).toFixed(1)} KiB`,
      );
      // Each configuration twice, alternating, so JIT warm-up and heap growth do not favour one.
      const byMode = new Map<boolean, Run[]>([
        [true, []],
        [false, []],
      ]);
      for (const strip of [true, false, true, false]) {
        const r = await measure(clients, core, count, strip, baseline);
        byMode.get(strip)?.push(r);
        console.log(JSON.stringify(r));
      }
      for (const rs of byMode.values()) {
        runs.push({
          ...(rs[0] as Run),
          syncMs: Math.min(...rs.map((r) => r.syncMs)),
          heapPerNodeKiB: Math.min(...rs.map((r) => r.heapPerNodeKiB)),
          watchLatencyMs: Math.min(...rs.map((r) => r.watchLatencyMs)),
        });
      }
    }
  } finally {
    await clients.close();
    await cp.stop();
  }
  console.log(
    '\n| Nodes | transform | heap per cached Node | JSON per cached Node | LIST+store sync | watch event latency |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const r of runs) {
    console.log(
      `| ${r.count} | ${r.transform} | ${r.heapPerNodeKiB} KiB | ${r.jsonPerNodeKiB} KiB | ${r.syncMs} ms | ${r.watchLatencyMs} ms |`,
    );
  }
  console.log(
    `\nNode ${process.version}, ${process.platform}/${process.arch}; total ${Math.round((performance.now() - t0) / 1000)} s`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
