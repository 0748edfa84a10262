/**
 * Renders the CCM's manifests (`ccm-kit manifests`) and the Helm chart (`renderHelmChart`, used by
 * `npm create ccm-kit`) from the one template source in workload.ts and rbac.ts. The chart installs into
 * the release namespace (`helm install -n <ns>`); the manifests into `namespace` (decision 0425).
 */
import { stringify } from 'yaml';
import { chartReadme } from './chart-readme.js';
import { rbacTemplate } from './rbac.js';
import { DEFAULT_NAMESPACE, helmCondition, helmSource, toHelmTemplate, valuesSource } from './source.js';
import type { ManifestValues } from './values.js';
import { workloadTemplates } from './workload.js';

export { rbacManifest } from './rbac.js';

const yaml = (o: unknown) => stringify(o, { lineWidth: 0, aliasDuplicateObjects: false });

/**
 * The RBAC for a CCM in `namespace` (ServiceAccount, ClusterRole, bindings; docs/deploy/rbac.yaml for
 * kube-system), the leader-election Role in the namespace of `values.args['leader-elect-resource-namespace']`
 * (default kube-system).
 */
export function renderRbac(values: ManifestValues, namespace = DEFAULT_NAMESPACE): string {
  return rbacTemplate(valuesSource(values, namespace));
}

/** The workload objects for `values` in `namespace` (default kube-system) as multi-document YAML. */
export function renderWorkload(values: ManifestValues, namespace = DEFAULT_NAMESPACE): string {
  const t = valuesSource(values, namespace);
  return workloadTemplates(t)
    .filter((o) => o.condition === undefined || t.include(o.condition))
    .map((o) => yaml(o.object))
    .join('---\n');
}

/**
 * RBAC then the workload, in `namespace` (default kube-system): everything `kubectl apply -f` needs, as one
 * multi-document YAML; what `helm template -n <namespace>` renders for the same values.
 */
export function renderManifests(values: ManifestValues, namespace = DEFAULT_NAMESPACE): string {
  return `${renderRbac(values, namespace).trimEnd()}\n---\n${renderWorkload(values, namespace)}`;
}

/** A Helm chart (apiVersion v2) as `path → content`, templates from the same source as {@link renderManifests}. */
export function renderHelmChart(values: ManifestValues, chartVersion = '0.1.0'): Record<string, string> {
  const files: Record<string, string> = {
    'Chart.yaml': yaml({
      apiVersion: 'v2',
      name: `${values.providerName}-cloud-controller-manager`,
      description: `The ${values.providerName} Kubernetes cloud-controller-manager (built with ccm-kit)`,
      type: 'application',
      version: chartVersion,
      appVersion: values.image.tag,
    }),
    'README.md': chartReadme(values),
    'values.yaml': yaml(values),
    'templates/rbac.yaml': toHelmTemplate(rbacTemplate(helmSource())),
  };
  for (const o of workloadTemplates(helmSource())) {
    const body = toHelmTemplate(yaml(o.object)).trimEnd();
    files[`templates/${o.file}`] = o.condition
      ? `{{- if ${helmCondition(o.condition)} }}\n${body}\n{{- end }}\n`
      : `${body}\n`;
  }
  return files;
}
