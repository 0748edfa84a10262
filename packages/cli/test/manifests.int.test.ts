/**
 * The rendered manifests against a real kube-apiserver: `kubectl apply --dry-run=server` into kube-system
 * labelled for Pod Security "restricted" (enforce and warn). A Deployment or DaemonSet only draws warnings
 * from Pod Security, so the Pod template is also applied as a Pod, which "enforce" admits or rejects.
 */
import { useControlPlane } from '@ccm-kit/testing/vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderManifests } from '../src/manifests/render.js';
import { defaultManifestValues, type ManifestValues } from '../src/manifests/values.js';
import { kubectl } from './kubectl.js';

const controlPlane = useControlPlane();
const apply = (yamlText: string) => kubectl(controlPlane().kubeconfigPath, ['apply', '--dry-run=server', '-f', '-'], yamlText);

/** The Pod a workload would create, as a Pod object in the same namespace. */
function podOf(manifests: string, kind: string): string {
  const workload = parseAllDocuments(manifests)
    .map((d) => d.toJS() as { kind?: string; metadata: { namespace: string }; spec: { template: { spec: unknown } } } | null)
    .find((o) => o?.kind === kind)!;
  return stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'ccm-pod-security-probe', namespace: workload.metadata.namespace },
    spec: workload.spec.template.spec,
  });
}

beforeAll(() => {
  const r = kubectl(controlPlane().kubeconfigPath, [
    'label', '--overwrite', 'namespace', 'kube-system',
    'pod-security.kubernetes.io/enforce=restricted', 'pod-security.kubernetes.io/warn=restricted',
  ]);
  expect(r.stderr).toBe('');
});

describe('ccm-kit manifests under Pod Security "restricted"', () => {
  it.each(['Deployment', 'DaemonSet'] as const)('RBAC and %s apply with --dry-run=server, without warnings', (kind) => {
    const manifests = renderManifests(defaultManifestValues('mycloud', kind));
    const r = apply(manifests);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`${kind.toLowerCase()}.apps/cloud-controller-manager created (server dry run)`);
    expect(r.stdout).toContain('serviceaccount/cloud-controller-manager created (server dry run)');
    const pod = apply(podOf(manifests, kind));
    expect(pod.stderr).toBe('');
    expect(pod.stdout).toContain('pod/ccm-pod-security-probe created (server dry run)');
  });

  it('the monitoring Service applies too', () => {
    const values: ManifestValues = { ...defaultManifestValues('mycloud'), monitoring: { enabled: true, podMonitor: false } };
    const r = apply(renderManifests(values));
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('service/cloud-controller-manager-metrics created (server dry run)');
  });

  it('hostNetwork (dnsPolicy Default) is valid, and "restricted" rejects it, as documented', () => {
    const values: ManifestValues = { ...defaultManifestValues('mycloud'), hostNetwork: true };
    const manifests = renderManifests(values);
    expect(manifests).toContain('dnsPolicy: Default');
    const workload = apply(manifests);
    expect(workload.status).toBe(0);
    expect(workload.stderr).toMatch(/would violate PodSecurity "restricted:latest": host namespaces \(hostNetwork=true\)/);
    const pod = apply(podOf(manifests, 'Deployment'));
    expect(pod.status).not.toBe(0);
    expect(pod.stderr).toMatch(/forbidden: violates PodSecurity "restricted:latest": host namespaces \(hostNetwork=true\)/);
  });
});
