import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { manifestsCommand, manifestValuesFromArgs } from '../src/commands/manifests.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed YAML, checked field by field
const objects = (yamlText: string) => parseAllDocuments(yamlText).map((d) => d.toJS() as { kind: string; spec?: Record<string, any> });

describe('ccm-kit manifests', () => {
  it('renders RBAC and the workload for the provider, image and flags', () => {
    let out = '';
    manifestsCommand(['--provider', 'acme', '--image', 'ghcr.io/acme/ccm:1.2.3', '--arg', 'v=4', '--arg', 'cluster-name=prod'], (t) => (out = t));
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

  it.each([
    [[], /--provider: give the provider name/],
    [['--provider', 'Bad_Name'], /--provider/],
    [['--provider', 'a', '--kind', 'StatefulSet'], /--kind: "StatefulSet"/],
    [['--provider', 'a', '--image', 'repo/only'], /--image: "repo\/only" has no tag/],
    [['--provider', 'a', '--replicas', '0'], /--replicas: "0"/],
    [['--provider', 'a', '--arg', '=x'], /--arg: "=x"/],
  ])('rejects %j naming the flag', (argv, message) => {
    expect(() => manifestValuesFromArgs(argv)).toThrow(message);
  });
});
