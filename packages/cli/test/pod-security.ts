/**
 * Pod Security "restricted" checks for the rendered manifests (`ccm-kit manifests` and the Helm chart):
 * the namespace label, and the Pod a workload would create. A Deployment or DaemonSet only draws warnings
 * from Pod Security, so the Pod template is also applied as a Pod, which "enforce" admits or rejects.
 */
import { parseAllDocuments, stringify } from 'yaml';
import { kubectl, type KubectlResult } from './kubectl.js';

/** Labels `namespace` for Pod Security "restricted" (enforce and warn). */
export function labelRestricted(kubeconfigPath: string, namespace: string): KubectlResult {
  return kubectl(kubeconfigPath, [
    'label',
    '--overwrite',
    'namespace',
    namespace,
    'pod-security.kubernetes.io/enforce=restricted',
    'pod-security.kubernetes.io/warn=restricted',
  ]);
}

/** The Pod a workload of `kind` in `manifests` would create, as a Pod object in the same namespace. */
export function podOf(manifests: string, kind: string): string {
  const workload = parseAllDocuments(manifests)
    .map(
      (d) =>
        d.toJS() as { kind?: string; metadata: { namespace: string }; spec: { template: { spec: unknown } } } | null,
    )
    .find((o) => o?.kind === kind);
  if (!workload) throw new Error(`no ${kind} in the manifests`);
  return stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'ccm-pod-security-probe', namespace: workload.metadata.namespace },
    spec: workload.spec.template.spec,
  });
}
