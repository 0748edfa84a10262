import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { manifestsCommand, manifestValuesFromArgs } from '../src/commands/manifests.js';
import { rbacManifest } from '../src/manifests/render.js';

const objects = (yamlText: string) =>
  parseAllDocuments(yamlText).map(
    (d) =>
      d.toJS() as {
        kind: string;
        metadata: { name: string; namespace?: string };
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed YAML, checked field by field
        spec: Record<string, any>;
        subjects?: Array<{ kind: string; name: string; namespace: string }>;
      },
  );
/** `kind/name → namespace` of the namespaced objects, and the namespaces of the ServiceAccount subjects. */
function placement(yamlText: string) {
  const objs = objects(yamlText);
  return {
    namespaces: Object.fromEntries(
      objs.filter((o) => o.metadata.namespace).map((o) => [`${o.kind}/${o.metadata.name}`, o.metadata.namespace]),
    ),
    subjects: [...new Set(objs.flatMap((o) => o.subjects ?? []).map((s) => `${s.kind}:${s.namespace}:${s.name}`))],
  };
}

describe('ccm-kit manifests', () => {
  it('renders RBAC and the workload for the provider, image and flags', () => {
    let out = '';
    manifestsCommand(
      ['--provider', 'acme', '--image', 'ghcr.io/acme/ccm:1.2.3', '--arg', 'v=4', '--arg', 'cluster-name=prod'],
      (t) => (out = t),
    );
    const objs = objects(out);
    expect(objs.map((o) => o.kind)).toEqual(expect.arrayContaining(['ServiceAccount', 'ClusterRole', 'Deployment']));
    const deployment = objs.find((o) => o.kind === 'Deployment')!;
    expect(deployment.spec.replicas).toBe(2);
    const container = deployment.spec.template.spec.containers[0];
    expect(container.image).toBe('ghcr.io/acme/ccm:1.2.3');
    // --cloud-provider first, then the flags in name order (as the Helm chart's range gives them).
    expect(container.args).toEqual([
      '--cloud-provider=acme',
      '--cloud-config=/etc/acme/cloud.yaml',
      '--cluster-name=prod',
      '--leader-elect=true',
      '--secure-port=10258',
      '--v=4',
    ]);
  });

  it('--kind DaemonSet --host-network --no-rbac: only the DaemonSet, on the Node network', () => {
    let out = '';
    manifestsCommand(['--provider', 'acme', '--kind', 'DaemonSet', '--host-network', '--no-rbac'], (t) => (out = t));
    const [ds, ...rest] = objects(out);
    expect(rest).toEqual([]);
    expect(ds!.kind).toBe('DaemonSet');
    expect(ds!.spec.template.spec).toMatchObject({
      hostNetwork: true,
      dnsPolicy: 'Default',
      nodeSelector: { 'node-role.kubernetes.io/control-plane': '' },
      priorityClassName: 'system-node-critical',
    });
  });

  it('--namespace cloud-system: the ServiceAccount, the workload and every subject there; the Lease RBAC and the authentication reader in kube-system', () => {
    let out = '';
    manifestsCommand(['--provider', 'acme', '--namespace', 'cloud-system'], (t) => (out = t));
    expect(placement(out)).toEqual({
      namespaces: {
        'ServiceAccount/cloud-controller-manager': 'cloud-system',
        'Role/system:cloud-controller-manager:leader-election': 'kube-system',
        'RoleBinding/system:cloud-controller-manager:leader-election': 'kube-system',
        'RoleBinding/system:cloud-controller-manager:apiserver-authentication-reader': 'kube-system',
        'Deployment/cloud-controller-manager': 'cloud-system',
      },
      subjects: ['ServiceAccount:cloud-system:cloud-controller-manager'],
    });
  });

  it('--arg leader-elect-resource-namespace: the Lease Role and RoleBinding follow the flag', () => {
    let out = '';
    manifestsCommand(
      [
        '--provider',
        'acme',
        '--namespace',
        'cloud-system',
        '--arg',
        'leader-elect-resource-namespace=cloud-system',
        '--rbac-only',
      ],
      (t) => (out = t),
    );
    const { namespaces } = placement(out);
    expect(namespaces['Role/system:cloud-controller-manager:leader-election']).toBe('cloud-system');
    expect(namespaces['RoleBinding/system:cloud-controller-manager:leader-election']).toBe('cloud-system');
    expect(namespaces['RoleBinding/system:cloud-controller-manager:apiserver-authentication-reader']).toBe(
      'kube-system',
    );
    expect(objects(out).map((o) => o.kind)).not.toContain('Deployment');
  });

  it('without --namespace, --rbac-only prints docs/deploy/rbac.yaml as shipped', () => {
    let out = '';
    manifestsCommand(['--provider', 'acme', '--rbac-only'], (t) => (out = t));
    expect(out).toBe(rbacManifest());
  });

  it.each([
    [[], /--provider: not given and package.json has no "ccmKit.provider"/],
    [['--provider', 'a', '--namespace', 'Cloud_System'], /--namespace: "Cloud_System" is not a namespace name/],
    [['--provider', 'Bad_Name'], /--provider/],
    [['--provider', 'a', '--kind', 'StatefulSet'], /--kind: "StatefulSet"/],
    [['--provider', 'a', '--image', 'repo/only'], /--image: "repo\/only" has no tag/],
    [['--provider', 'a', '--replicas', '0'], /--replicas: "0"/],
    [['--provider', 'a', '--arg', '=x'], /--arg: "=x"/],
  ])('rejects %j naming the flag', (argv, message) => {
    expect(() => manifestValuesFromArgs(argv, tmpdir())).toThrow(message);
  });

  it('takes the provider from package.json "ccmKit.provider", as ccm-kit dev does; --provider wins', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ccm-kit-manifests-'));
    try {
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: 'x', ccmKit: { provider: 'rancher', entry: 'dist/main.js' } }),
      );
      let out = '';
      manifestsCommand([], (t) => (out = t), dir);
      expect(out).toContain('--cloud-provider=rancher');
      expect(manifestValuesFromArgs(['--provider', 'acme'], dir).values.providerName).toBe('acme');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
