/**
 * The CCM's workload objects, written once against a {@link TemplateSource}: a Deployment (replicas with
 * leader election), a DaemonSet (one per control-plane Node), a metrics Service and a PodMonitor. The pod
 * passes Pod Security `restricted` unless `hostNetwork` is on (non-root, seccomp RuntimeDefault, no
 * privilege escalation, no capabilities, read-only root filesystem with a writable /tmp).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { TemplateSource } from './source.js';

/** The name of the workload, its ServiceAccount (docs/deploy/rbac.yaml) and the leader-election Lease. */
export const CCM_NAME = 'cloud-controller-manager';
/** The secure port (`--secure-port`, upstream's default for the CCM). */
export const SECURE_PORT = 10258;

/** One object of the output, rendered only when `condition` holds (see `TemplateSource.include`). */
export interface TemplateObject {
  /** File name in the chart's templates/ directory. */
  file: string;
  condition?: string;
  object: KubernetesObject & Record<string, unknown>;
}

const labels = { 'app.kubernetes.io/name': CCM_NAME };

function podTemplate(t: TemplateSource, kind: 'Deployment' | 'DaemonSet') {
  const httpsProbe = { httpGet: { path: '/livez', port: SECURE_PORT, scheme: 'HTTPS' } };
  return {
    metadata: { labels },
    spec: {
      serviceAccountName: CCM_NAME,
      priorityClassName: t.value('priorityClassName'),
      hostNetwork: t.value('hostNetwork'),
      // With the Node's network the Pod cannot use cluster DNS before the network is up.
      dnsPolicy: t.choose('hostNetwork', 'Default', 'ClusterFirst'),
      nodeSelector: t.value('nodeSelector'),
      tolerations: t.value('tolerations'),
      ...(kind === 'Deployment'
        ? {
            affinity: {
              podAntiAffinity: {
                preferredDuringSchedulingIgnoredDuringExecution: [
                  {
                    weight: 100,
                    podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: labels } },
                  },
                ],
              },
            },
          }
        : {}),
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 65532,
        runAsGroup: 65532,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      containers: [
        {
          name: CCM_NAME,
          image: t.concat(t.value('image.repository'), ':', t.value('image.tag')),
          imagePullPolicy: t.value('image.pullPolicy'),
          args: [t.concat('--cloud-provider=', t.value('providerName')), ...t.flags('args')],
          env: t.value('env'),
          ports: [{ name: 'https', containerPort: SECURE_PORT }],
          livenessProbe: { ...httpsProbe, initialDelaySeconds: 15 },
          readinessProbe: { httpGet: { ...httpsProbe.httpGet, path: '/readyz' } },
          resources: t.value('resources'),
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          },
          volumeMounts: [
            { name: 'cloud-config', mountPath: t.concat('/etc/', t.value('providerName')), readOnly: true },
            { name: 'tmp', mountPath: '/tmp' },
          ],
        },
      ],
      volumes: [
        // optional: a provider without a cloud config starts without the Secret.
        { name: 'cloud-config', secret: { secretName: t.value('cloudConfigSecret'), optional: true } },
        { name: 'tmp', emptyDir: {} },
      ],
    },
  };
}

/** Every object the chart can render; `renderManifests` keeps those whose condition holds. */
export function workloadTemplates(t: TemplateSource): TemplateObject[] {
  const metadata = { name: CCM_NAME, namespace: t.namespace(), labels };
  return [
    {
      file: 'deployment.yaml',
      condition: 'kind==Deployment',
      object: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata,
        spec: {
          replicas: t.value('replicaCount'),
          selector: { matchLabels: labels },
          template: podTemplate(t, 'Deployment'),
        },
      },
    },
    {
      file: 'daemonset.yaml',
      condition: 'kind==DaemonSet',
      object: {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata,
        spec: { selector: { matchLabels: labels }, template: podTemplate(t, 'DaemonSet') },
      },
    },
    {
      file: 'metrics-service.yaml',
      condition: 'monitoring.enabled',
      object: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { ...metadata, name: `${CCM_NAME}-metrics` },
        spec: { selector: labels, ports: [{ name: 'https', port: SECURE_PORT, targetPort: 'https' }] },
      },
    },
    {
      file: 'podmonitor.yaml',
      condition: 'monitoring.podMonitor',
      object: {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'PodMonitor',
        metadata,
        spec: {
          selector: { matchLabels: labels },
          podMetricsEndpoints: [{ port: 'https', scheme: 'https', tlsConfig: { insecureSkipVerify: true } }],
        },
      },
    },
  ];
}
