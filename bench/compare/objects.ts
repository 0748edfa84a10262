/**
 * Realistic Nodes (about 9–10 KB of JSON each: 30 images, full conditions, capacity, nodeInfo, podCIDR)
 * and LoadBalancer Services for the side-by-side benchmark. Deterministic from the index.
 */
import type { V1Node, V1Service } from '@kubernetes/client-node';
import { fakebenchNodeIP, fakebenchZone, nodeName } from '../fakebench.ts';

export { nodeName };

/** Label on every object the benchmark creates. */
export const BENCH_LABEL = 'ccm-kit.io/bench';
/** Namespace of the benchmark's Services. */
export const BENCH_NAMESPACE = 'bench';
export const UNINITIALIZED_TAINT = 'node.cloudprovider.kubernetes.io/uninitialized';

const REPOS = [
  'registry.k8s.io/kube-proxy',
  'registry.k8s.io/pause',
  'registry.k8s.io/coredns/coredns',
  'docker.io/calico/node',
  'docker.io/calico/cni',
  'docker.io/calico/kube-controllers',
  'quay.io/prometheus/node-exporter',
  'quay.io/prometheus-operator/prometheus-config-reloader',
  'docker.io/library/nginx',
  'docker.io/grafana/promtail',
  'registry.k8s.io/ingress-nginx/controller',
  'docker.io/bitnami/redis',
  'quay.io/jetstack/cert-manager-controller',
  'quay.io/jetstack/cert-manager-webhook',
  'docker.io/fluent/fluent-bit',
  'registry.k8s.io/metrics-server/metrics-server',
  'docker.io/library/postgres',
  'docker.io/envoyproxy/envoy',
  'quay.io/cilium/cilium',
  'docker.io/library/busybox',
  'registry.example.com/shop/checkout',
  'registry.example.com/shop/cart',
  'registry.example.com/shop/catalog',
  'registry.example.com/data/indexer',
  'registry.example.com/data/batch-runner',
  'docker.io/library/rabbitmq',
  'quay.io/argoproj/argocd',
  'docker.io/istio/proxyv2',
  'registry.k8s.io/sig-storage/csi-node-driver-registrar',
  'registry.k8s.io/sig-storage/livenessprobe',
];

/** 64 hex digits, deterministic from (seed, salt). */
function digest(seed: number, salt: string): string {
  let x = (seed * 2654435761 + salt.length * 40503) >>> 0;
  let out = '';
  while (out.length < 64) {
    x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x297a2d39) >>> 0;
    out += x.toString(16).padStart(8, '0');
  }
  return out.slice(0, 64);
}

/** Taint the node lifecycle controller puts on a shut-down Node (k8s.io/cloud-provider api.TaintNodeShutdown). */
export const SHUTDOWN_TAINT = 'node.cloudprovider.kubernetes.io/shutdown';

/**
 * A Node as a kubelet started with `--cloud-provider=external --node-ip=<ip>` registers it: the
 * uninitialized taint, no providerID, the provided-node-ip annotation, only a Hostname address.
 * With `initialized`, the Node is as a CCM with the fakebench cloud leaves it (providerID, zone, region
 * and instance-type labels, InternalIP + Hostname addresses, no taint), so a CCM has nothing to change.
 */
export function makeNode(i: number, initialized: boolean, opts: { name?: string; ready?: boolean } = {}): V1Node {
  const name = opts.name ?? nodeName(i);
  const ready = opts.ready ?? true;
  const ip = fakebenchNodeIP(name);
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  });
  const cidr = `10.${64 + ((i >> 8) & 63)}.${i & 255}.0/24`;
  const labels: Record<string, string> = {
    [BENCH_LABEL]: 'true',
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'beta.kubernetes.io/arch': 'amd64',
    'node-pool': `pool-${i % 5}`,
    'team.example.com/owner': `team-${i % 7}`,
  };
  if (initialized) {
    Object.assign(labels, {
      'node.kubernetes.io/instance-type': 'fb.standard-4',
      'beta.kubernetes.io/instance-type': 'fb.standard-4',
      'topology.kubernetes.io/zone': fakebenchZone(name),
      'failure-domain.beta.kubernetes.io/zone': fakebenchZone(name),
      'topology.kubernetes.io/region': 'fakebench-1',
      'failure-domain.beta.kubernetes.io/region': 'fakebench-1',
    });
  }
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels,
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        'alpha.kubernetes.io/provided-node-ip': ip,
        'csi.volume.kubernetes.io/nodeid': JSON.stringify({ 'csi.example.com': `vm-${digest(i, 'vm').slice(0, 20)}` }),
      },
    },
    spec: {
      podCIDR: cidr,
      podCIDRs: [cidr],
      ...(initialized
        ? { providerID: `fakebench://${name}` }
        : { taints: [{ key: UNINITIALIZED_TAINT, value: 'true', effect: 'NoSchedule' }] }),
    },
    status: {
      capacity: {
        cpu: '8',
        memory: '32863284Ki',
        pods: '110',
        'ephemeral-storage': '203056560Ki',
        'hugepages-1Gi': '0',
        'hugepages-2Mi': '0',
      },
      allocatable: {
        cpu: '7910m',
        memory: '31846452Ki',
        pods: '110',
        'ephemeral-storage': '187136925387',
        'hugepages-1Gi': '0',
        'hugepages-2Mi': '0',
      },
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        ready
          ? condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status')
          : condition('Ready', 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'),
      ],
      addresses: initialized
        ? [
            { type: 'InternalIP', address: ip },
            { type: 'Hostname', address: name },
          ]
        : [{ type: 'Hostname', address: name }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: digest(i, 'machine').slice(0, 32),
        systemUUID: digest(i, 'system-uuid').slice(0, 32),
        bootID: digest(i, 'boot').slice(0, 32),
        kernelVersion: '6.8.0-1021-generic',
        osImage: 'Ubuntu 24.04.2 LTS',
        containerRuntimeVersion: 'containerd://2.0.5',
        kubeletVersion: 'v1.36.4',
        kubeProxyVersion: 'v1.36.4',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images: REPOS.map((repo, k) => ({
        names: [`${repo}@sha256:${digest(i * 37 + k, repo)}`, `${repo}:v${1 + (k % 3)}.${(i + k) % 17}.${k % 9}`],
        sizeBytes: 5_000_000 + ((i * 7919 + k * 104729) % 300_000_000),
      })),
    },
  };
}

export function serviceName(i: number): string {
  return `bench-lb-${String(i).padStart(4, '0')}`;
}

/** A LoadBalancer Service with two ports (default class, cluster traffic policy). */
export function makeService(i: number): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: serviceName(i),
      namespace: BENCH_NAMESPACE,
      labels: { [BENCH_LABEL]: 'true', app: `app-${i}` },
    },
    spec: {
      type: 'LoadBalancer',
      selector: { app: `app-${i}` },
      ports: [
        { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
        { name: 'https', port: 443, targetPort: 8443, protocol: 'TCP' },
      ],
    },
  };
}

/** True when a Node is initialized as the W1 predicate asks. */
export function nodeConverged(node: V1Node, type = 'ADDED'): boolean {
  const name = node.metadata?.name ?? '';
  return (
    type !== 'DELETED' &&
    node.spec?.providerID === `fakebench://${name}` &&
    !(node.spec?.taints ?? []).some((t) => t.key === UNINITIALIZED_TAINT) &&
    (node.status?.addresses ?? []).some((a) => a.type === 'InternalIP' && a.address === fakebenchNodeIP(name)) &&
    node.metadata?.labels?.['topology.kubernetes.io/zone'] === fakebenchZone(name)
  );
}

/** True when a Service has a load-balancer ingress (the W2 predicate). */
export function serviceConverged(svc: V1Service, type = 'ADDED'): boolean {
  return type !== 'DELETED' && (svc.status?.loadBalancer?.ingress ?? []).some((i) => Boolean(i.ip || i.hostname));
}

/** True when the route controller has set NetworkUnavailable=False on the Node (the W4 predicate). */
export function nodeRouted(node: V1Node, type = 'ADDED'): boolean {
  return (
    type !== 'DELETED' &&
    (node.status?.conditions ?? []).some((c) => c.type === 'NetworkUnavailable' && c.status === 'False')
  );
}

/**
 * The W5 predicate: a `gone` Node is deleted, a `shutdown` Node carries the shutdown taint, any other
 * Node has converged as it is.
 */
export function nodeLifecycleDone(node: V1Node, type = 'ADDED'): boolean {
  const name = node.metadata?.name ?? '';
  if (name.includes('-gone-')) return type === 'DELETED';
  if (name.includes('-shutdown-')) {
    return type !== 'DELETED' && (node.spec?.taints ?? []).some((t) => t.key === SHUTDOWN_TAINT);
  }
  return type !== 'DELETED';
}
