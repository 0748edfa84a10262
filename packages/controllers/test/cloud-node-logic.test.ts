import { kubeletNode } from '@ccm-kit/testing';
import type { V1Node, V1NodeAddress } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  desiredNodeAddresses,
  nodeAddressesChangeDetected,
  nodeAddressesStatusPatch,
} from '../src/cloud-node/addresses.js';
import { excludeCloudTaint, getCloudTaint } from '../src/cloud-node/cloud-taint.js';
import { applyAdditionalLabels, labelsToReconcile } from '../src/cloud-node/labels.js';
import { applyModifiers, nodeModifiersFromMetadata, removeCloudTaint } from '../src/cloud-node/modifiers.js';

const UNINIT = 'node.cloudprovider.kubernetes.io/uninitialized';
const addr = (type: string, address: string): V1NodeAddress => ({ type, address });

describe('reconcileNodeLabels (beta -> GA)', () => {
  it('NODE-23: requires reconcile - GA labels are added from the beta labels', () => {
    expect(
      labelsToReconcile({
        'failure-domain.beta.kubernetes.io/zone': 'foo',
        'failure-domain.beta.kubernetes.io/region': 'bar',
        'beta.kubernetes.io/instance-type': 'the-best-type',
      }),
    ).toEqual({
      'topology.kubernetes.io/zone': 'foo',
      'topology.kubernetes.io/region': 'bar',
      'node.kubernetes.io/instance-type': 'the-best-type',
    });
  });

  it("NODE-24: doesn't require reconcile when all six labels agree", () => {
    expect(
      labelsToReconcile({
        'failure-domain.beta.kubernetes.io/zone': 'foo',
        'failure-domain.beta.kubernetes.io/region': 'bar',
        'beta.kubernetes.io/instance-type': 'the-best-type',
        'topology.kubernetes.io/zone': 'foo',
        'topology.kubernetes.io/region': 'bar',
        'node.kubernetes.io/instance-type': 'the-best-type',
      }),
    ).toEqual({});
  });

  it('NODE-25: require reconcile - secondary labels different from primary are overwritten', () => {
    expect(
      labelsToReconcile({
        'failure-domain.beta.kubernetes.io/zone': 'foo',
        'failure-domain.beta.kubernetes.io/region': 'bar',
        'beta.kubernetes.io/instance-type': 'the-best-type',
        'topology.kubernetes.io/zone': 'wrongfoo',
        'topology.kubernetes.io/region': 'wrongbar',
        'node.kubernetes.io/instance-type': 'the-wrong-type',
      }),
    ).toEqual({
      'topology.kubernetes.io/zone': 'foo',
      'topology.kubernetes.io/region': 'bar',
      'node.kubernetes.io/instance-type': 'the-best-type',
    });
  });

  it('never copies GA back to beta, and tolerates missing labels', () => {
    expect(labelsToReconcile({ 'topology.kubernetes.io/zone': 'foo' })).toEqual({});
    expect(labelsToReconcile(undefined)).toEqual({});
    expect(labelsToReconcile({ 'failure-domain.beta.kubernetes.io/zone': '' })).toEqual({
      'topology.kubernetes.io/zone': '',
    });
  });
});

describe('additional labels filter', () => {
  it('drops kubernetes.io / k8s.io domains and keeps look-alikes', () => {
    const labels: Record<string, string> = {};
    const discarded = applyAdditionalLabels(labels, {
      'kubernetes.io/x': 'a',
      'k8s.io/x': 'a',
      'topology.kubernetes.io/x': 'a',
      'foo.k8s.io/x': 'a',
      'k8snio/x': 'b',
      'app.k8snio/x': 'b',
      'topology.k8s.cp/zone-id': 'b',
    });
    expect(labels).toEqual({ 'k8snio/x': 'b', 'app.k8snio/x': 'b', 'topology.k8s.cp/zone-id': 'b' });
    expect(discarded.map((d) => d.key).sort()).toEqual(
      ['foo.k8s.io/x', 'k8s.io/x', 'kubernetes.io/x', 'topology.kubernetes.io/x'].sort(),
    );
  });

  it('keeps existing values and flags only conflicting ones', () => {
    const labels: Record<string, string> = { a: '1', b: '2' };
    const discarded = applyAdditionalLabels(labels, { a: '1', b: '3', c: '4' });
    expect(labels).toEqual({ a: '1', b: '2', c: '4' });
    expect(discarded).toEqual([
      { key: 'a', reason: 'already-present', conflicting: false },
      { key: 'b', reason: 'already-present', conflicting: true },
    ]);
  });
});

describe('nodeAddressesChangeDetected', () => {
  const base = [addr('InternalIP', '10.0.0.1'), addr('ExternalIP', '132.143.154.163')];
  it('NODE-26a: same addresses are unchanged', () => {
    expect(nodeAddressesChangeDetected(base, [...base])).toBe(false);
  });
  it('NODE-26b: a different ExternalIP is a change', () => {
    expect(
      nodeAddressesChangeDetected([addr('InternalIP', '10.0.0.1'), addr('ExternalIP', '132.143.154.164')], base),
    ).toBe(true);
  });
  it('NODE-26c: an extra Hostname in the old list is a change', () => {
    expect(nodeAddressesChangeDetected([...base, addr('Hostname', 'hostname.zone.region.aws.test')], base)).toBe(true);
  });
  it('NODE-26d: an extra Hostname in the new list is a change', () => {
    expect(nodeAddressesChangeDetected(base, [...base, addr('Hostname', 'hostname.zone.region.aws.test')])).toBe(true);
  });
  it('NODE-26e: swapped types are a change', () => {
    expect(
      nodeAddressesChangeDetected([addr('ExternalIP', '10.0.0.1'), addr('InternalIP', '132.143.154.163')], base),
    ).toBe(true);
  });
  it('is lossy for two entries of one type, as upstream', () => {
    expect(
      nodeAddressesChangeDetected(
        [addr('InternalIP', 'a'), addr('InternalIP', 'b')],
        [addr('InternalIP', 'b'), addr('InternalIP', 'b')],
      ),
    ).toBe(false);
  });
});

const node = (partial: { annotations?: Record<string, string>; addresses?: V1NodeAddress[] } = {}): V1Node =>
  kubeletNode('node0', { taints: [], ...partial });

describe('desiredNodeAddresses', () => {
  const cloud3 = [
    addr('Hostname', 'node0.cloud.internal'),
    addr('InternalIP', '10.0.0.1'),
    addr('ExternalIP', '132.143.154.163'),
  ];
  it("NODE-01: the cloud's hostname replaces the kubelet's", () => {
    expect(desiredNodeAddresses(node({ addresses: [addr('Hostname', 'nodeoverriden')] }), cloud3)).toEqual(cloud3);
  });
  it("NODE-02: the kubelet's hostname is appended when the cloud has none", () => {
    expect(desiredNodeAddresses(node({ addresses: [addr('Hostname', 'nodeoverriden')] }), cloud3.slice(1))).toEqual([
      ...cloud3.slice(1),
      addr('Hostname', 'nodeoverriden'),
    ]);
  });
  it('NODE-08: the provided node IP orders the list; the kubelet hostname is kept', () => {
    expect(
      desiredNodeAddresses(
        node({
          annotations: { 'alpha.kubernetes.io/provided-node-ip': '10.0.0.1' },
          addresses: [addr('Hostname', 'node0.cloud.internal')],
        }),
        [addr('InternalIP', '10.0.0.1'), addr('ExternalIP', '132.143.154.163')],
      ),
    ).toEqual([
      addr('InternalIP', '10.0.0.1'),
      addr('ExternalIP', '132.143.154.163'),
      addr('Hostname', 'node0.cloud.internal'),
    ]);
  });
  it('writes nothing for an empty cloud list or an unchanged list', () => {
    expect(desiredNodeAddresses(node({ addresses: cloud3 }), [])).toBeUndefined();
    expect(desiredNodeAddresses(node({ addresses: cloud3 }), undefined)).toBeUndefined();
    expect(desiredNodeAddresses(node({ addresses: cloud3 }), cloud3)).toBeUndefined();
  });
  it('throws when the provided node IP matches no cloud address', () => {
    expect(() =>
      desiredNodeAddresses(node({ annotations: { 'alpha.kubernetes.io/provided-node-ip': '10.0.0.2' } }), cloud3),
    ).toThrow(/10\.0\.0\.2/);
  });
  it('the status patch replaces a non-empty list with the $patch: replace directive (PatchNodeStatus fix-up)', () => {
    expect(JSON.stringify(nodeAddressesStatusPatch([addr('InternalIP', '10.0.0.1')], [addr('Hostname', 'h')]))).toBe(
      '{"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.1"},{"$patch":"replace"}]}}',
    );
  });
  it('the status patch for a Node without addresses is the plain list (two-way diff of an absent key)', () => {
    for (const previous of [undefined, []]) {
      expect(JSON.stringify(nodeAddressesStatusPatch([addr('InternalIP', '10.0.0.1')], previous))).toBe(
        '{"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.1"}]}}',
      );
    }
  });
});

describe('cloud taint', () => {
  it('matches by key whatever the effect, and removes every copy', () => {
    const taints = [
      { key: UNINIT, value: 'true', effect: 'NoSchedule' },
      { key: 'ImproveCoverageTaint', value: 'true', effect: 'NoSchedule' },
      { key: UNINIT, effect: 'NoExecute' },
    ];
    expect(getCloudTaint(taints)).toBe(taints[0]);
    expect(getCloudTaint([{ key: 'x', effect: 'NoSchedule' }])).toBeUndefined();
    expect(excludeCloudTaint(taints)).toEqual([{ key: 'ImproveCoverageTaint', value: 'true', effect: 'NoSchedule' }]);
    expect(excludeCloudTaint(undefined)).toEqual([]);
  });
});

describe('node modifiers', () => {
  const tainted = (): V1Node => ({
    metadata: { name: 'node0', labels: { 'my.custom.label/foo': 'fizz', 'my.custom.label/bar': 'foo' } },
    spec: { taints: [{ key: UNINIT, value: 'true', effect: 'NoSchedule' }] },
  });

  it('NODE-19: zone/region pairs are set, additional labels filtered, existing values win', () => {
    const n = tainted();
    const discarded: string[] = [];
    const mods = nodeModifiersFromMetadata(
      n,
      {
        providerID: 'fake://12345',
        zone: 'us-west-1a',
        region: 'us-west',
        additionalLabels: {
          'topology.kubernetes.io/region': 'us-other-west',
          'topology.k8s.io/region': 'us-other-west',
          'kubernetes.io/region': 'us-other-west',
          'k8s.io/region': 'us-other-west',
          'my.custom.label/foo': 'bar',
          'my.custom.label/bar': 'foo',
          'app.k8snio/bar': 'foo',
          'k8snio/bar': 'foo',
        },
      },
      (d) => discarded.push(d.key),
    );
    const out = applyModifiers(n, [...mods, removeCloudTaint]);
    expect(out.metadata?.labels).toEqual({
      'failure-domain.beta.kubernetes.io/zone': 'us-west-1a',
      'failure-domain.beta.kubernetes.io/region': 'us-west',
      'topology.kubernetes.io/zone': 'us-west-1a',
      'topology.kubernetes.io/region': 'us-west',
      'my.custom.label/foo': 'fizz',
      'my.custom.label/bar': 'foo',
      'app.k8snio/bar': 'foo',
      'k8snio/bar': 'foo',
    });
    expect(out.spec?.providerID).toBe('fake://12345');
    expect(out.spec?.taints).toEqual([]);
    expect(n.spec?.taints).toHaveLength(1);
    expect(discarded).toContain('my.custom.label/foo');
  });

  it('sets the instance-type pair and never overwrites a providerID; modifiers are idempotent', () => {
    const n = tainted();
    n.spec!.providerID = 'test-provider-id';
    const mods = nodeModifiersFromMetadata(n, { providerID: 'fake://1', instanceType: 't1.micro' });
    const once = applyModifiers(n, mods);
    const twice = applyModifiers(once, mods);
    expect(twice).toEqual(once);
    expect(once.spec?.providerID).toBe('test-provider-id');
    expect(once.metadata?.labels?.['beta.kubernetes.io/instance-type']).toBe('t1.micro');
    expect(once.metadata?.labels?.['node.kubernetes.io/instance-type']).toBe('t1.micro');
  });

  it('NODE-09: an invalid provided node IP fails with the upstream message', () => {
    const n = tainted();
    n.metadata!.annotations = { 'alpha.kubernetes.io/provided-node-ip': 'invalid-ip' };
    expect(() =>
      nodeModifiersFromMetadata(n, {
        providerID: 'fake://1',
        nodeAddresses: [addr('InternalIP', '10.0.0.1')],
      }),
    ).toThrow(/^provided node ip for node "node0" is not valid: /);
  });

  it('NODE-10: a provided node IP missing from the cloud addresses fails', () => {
    const n = tainted();
    n.metadata!.annotations = { 'alpha.kubernetes.io/provided-node-ip': '10.0.0.2' };
    expect(() =>
      nodeModifiersFromMetadata(n, {
        providerID: 'fake://1',
        nodeAddresses: [addr('InternalIP', '10.0.0.1')],
      }),
    ).toThrow(/^provided node ip for node "node0" is not valid: /);
  });
});
