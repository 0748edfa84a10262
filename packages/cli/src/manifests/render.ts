/**
 * Renders the CCM's manifests (`ccm-kit manifests`) and the Helm chart (`renderHelmChart`, used by
 * `npm create ccm-kit`) from the one template source in workload.ts, plus the shipped RBAC.
 */
import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { assetPath } from '../assets.js';
import { helmCondition, helmSource, toHelmTemplate, valuesSource } from './source.js';
import type { ManifestValues } from './values.js';
import { workloadTemplates } from './workload.js';

const yaml = (o: unknown) => stringify(o, { lineWidth: 0, aliasDuplicateObjects: false });

/** The RBAC every deployment needs: ServiceAccount, ClusterRole(s) and bindings (docs/deploy/rbac.yaml). */
export function rbacManifest(): string {
  return readFileSync(assetPath('rbac.yaml'), 'utf8');
}

/** The workload objects for `values` as multi-document YAML (without the RBAC). */
export function renderWorkload(values: ManifestValues): string {
  const t = valuesSource(values);
  return workloadTemplates(t)
    .filter((o) => o.condition === undefined || t.include(o.condition))
    .map((o) => yaml(o.object))
    .join('---\n');
}

/** RBAC then the workload: everything `kubectl apply -f` needs, as one multi-document YAML. */
export function renderManifests(values: ManifestValues): string {
  return `${rbacManifest().trimEnd()}\n---\n${renderWorkload(values)}`;
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
    'values.yaml': yaml(values),
    'templates/rbac.yaml': rbacManifest(),
  };
  for (const o of workloadTemplates(helmSource())) {
    const body = toHelmTemplate(yaml(o.object)).trimEnd();
    files[`templates/${o.file}`] = o.condition ? `{{- if ${helmCondition(o.condition)} }}\n${body}\n{{- end }}\n` : `${body}\n`;
  }
  return files;
}
