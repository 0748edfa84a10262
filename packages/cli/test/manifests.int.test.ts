/**
 * The rendered manifests against a real kube-apiserver: `kubectl apply --dry-run=server` into kube-system
 * labelled for Pod Security "restricted" (enforce and warn), each workload's Pod template also applied as a
 * Pod (pod-security.ts). helm-chart.int.test.ts does the same for the Helm chart rendered by helm.
 */
import { useControlPlane } from '@ccm-kit/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderManifests } from '../src/manifests/render.js';
import { defaultManifestValues, type ManifestValues } from '../src/manifests/values.js';
import { applyServerDryRun } from './kubectl.js';
import { labelRestricted, podOf } from './pod-security.js';

const controlPlane = useControlPlane();
const apply = (yamlText: string) => applyServerDryRun(controlPlane().kubeconfigPath, yamlText);

beforeAll(() => {
  const r = labelRestricted(controlPlane().kubeconfigPath, 'kube-system');
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
    const values: ManifestValues = {
      ...defaultManifestValues('mycloud'),
      monitoring: { enabled: true, podMonitor: false },
    };
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
    expect(workload.stderr).toMatch(
      /would violate PodSecurity "restricted:latest": host namespaces \(hostNetwork=true\)/,
    );
    const pod = apply(podOf(manifests, 'Deployment'));
    expect(pod.status).not.toBe(0);
    expect(pod.stderr).toMatch(
      /forbidden: violates PodSecurity "restricted:latest": host namespaces \(hostNetwork=true\)/,
    );
  });
});
