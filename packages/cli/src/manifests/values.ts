/**
 * The settings a CCM deployment is rendered from: the same shape as the Helm chart's `values.yaml`
 * (which `renderHelmChart` writes from {@link defaultManifestValues}), so `ccm-kit manifests` flags, the
 * chart's values and docs/deploy/*.yaml all describe one thing. Modelled on the charts vendors ship
 * (hcloud-cloud-controller-manager's chart: image, args, env from secrets, resources, tolerations, node
 * selector, priority class, monitoring). The namespace is not a value: the chart installs into the release
 * namespace, `ccm-kit manifests` into `--namespace` (decision 0425).
 */
import type { V1EnvVar, V1ResourceRequirements, V1Toleration } from '@kubernetes/client-node';

/** Everything `renderManifests` and the chart's templates read. */
export interface ManifestValues {
  /** The provider name registered with `registerCloudProvider` (`--cloud-provider`). */
  providerName: string;
  /** `Deployment` (HA: replicas with leader election) or `DaemonSet` (one per control-plane Node). */
  kind: 'Deployment' | 'DaemonSet';
  /** Replicas of the Deployment (default 2; one leader). */
  replicaCount: number;
  /** The container image: `repository:tag` and its pull policy (Kubernetes `imagePullPolicy`). */
  image: { repository: string; tag: string; pullPolicy: 'Always' | 'IfNotPresent' | 'Never' };
  /** Flags as `name: value` (rendered `--name=value`), after `--cloud-provider`. */
  args: Record<string, string | number | boolean>;
  /**
   * Environment variables of the CCM container. By default the cloud API token, from key `token` of the Secret
   * `<providerName>-cloud-credentials` into `<PROVIDER>_API_TOKEN` (the variable a create-ccm-kit project's
   * cloud-config names in `tokenEnv`); the Secret is optional, so a provider without credentials starts without it.
   */
  env: V1EnvVar[];
  /** Name of a Secret mounted read-only at `/etc/<providerName>` holding `cloud.yaml`; empty: none. */
  cloudConfigSecret: string;
  /** CPU and memory requests and limits of the CCM container. */
  resources: V1ResourceRequirements;
  /**
   * Tolerations of the Pod (a CCM must run on control-plane Nodes and on Nodes tainted
   * `node.cloudprovider.kubernetes.io/uninitialized`).
   */
  tolerations: V1Toleration[];
  /** The Pod's `nodeSelector` (a DaemonSet's default: the control-plane role label); empty: any Node. */
  nodeSelector: Record<string, string>;
  /** The Pod's priority class (default `system-cluster-critical`, `system-node-critical` for a DaemonSet); empty: none. */
  priorityClassName: string;
  /**
   * Run in the Node's network namespace (dnsPolicy `Default`): for clusters whose Pod network needs the
   * CCM first. Pod Security `restricted` and `baseline` reject it; the namespace must allow `privileged`.
   */
  hostNetwork: boolean;
  /** A metrics Service (and, with `podMonitor`, a Prometheus Operator PodMonitor). */
  monitoring: { enabled: boolean; podMonitor: boolean };
}

/** The tolerations a CCM needs: it runs before Nodes are initialized or ready, on control-plane Nodes. */
export const CCM_TOLERATIONS: V1Toleration[] = [
  { key: 'CriticalAddonsOnly', operator: 'Exists' },
  { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists' },
];

/** The environment variable of the cloud API token for `providerName`: `my-cloud` → `MY_CLOUD_API_TOKEN`. */
function apiTokenEnvName(providerName: string): string {
  return `${providerName.toUpperCase().replace(/-/g, '_')}_API_TOKEN`;
}

/** The default credentials: the API token from the optional Secret `<providerName>-cloud-credentials`, key `token`. */
function defaultCredentialsEnv(providerName: string): V1EnvVar {
  return {
    name: apiTokenEnvName(providerName),
    valueFrom: { secretKeyRef: { name: `${providerName}-cloud-credentials`, key: 'token', optional: true } },
  };
}

/** Defaults for `providerName` (the image repository is derived from it). */
export function defaultManifestValues(
  providerName: string,
  kind: ManifestValues['kind'] = 'Deployment',
): ManifestValues {
  return {
    providerName,
    kind,
    replicaCount: 2,
    image: {
      repository: `registry.example.com/${providerName}/cloud-controller-manager`,
      tag: 'v0.1.0',
      pullPolicy: 'IfNotPresent',
    },
    args: { 'cloud-config': `/etc/${providerName}/cloud.yaml`, 'leader-elect': true, 'secure-port': 10258, v: 2 },
    env: [defaultCredentialsEnv(providerName)],
    cloudConfigSecret: `${providerName}-cloud-config`,
    // The smallest memory limit 5,000 Nodes and 1,000 LoadBalancer Services completed under was 72 MiB
    // (bench:compare --find-mem-limit, docs/scale.md "Memory"): the request is above it with room for what the
    // benchmark lacks (the route controller, Events, the provider's own caches), the limit doubles the request.
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
    tolerations: CCM_TOLERATIONS,
    nodeSelector: kind === 'DaemonSet' ? { 'node-role.kubernetes.io/control-plane': '' } : {},
    priorityClassName: kind === 'DaemonSet' ? 'system-node-critical' : 'system-cluster-critical',
    hostNetwork: false,
    monitoring: { enabled: false, podMonitor: false },
  };
}
