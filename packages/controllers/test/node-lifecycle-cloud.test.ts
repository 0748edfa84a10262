import { InstanceNotFoundError, NotImplementedError } from '@ccm-kit/cloud-provider';
import { FakeCloud, kubeletNode } from '@ccm-kit/testing';
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { getProviderID, instanceExists, instanceShutdown } from '../src/node-lifecycle/instance-state.js';
import { hasTaint, readyConditionStatus, SHUTDOWN_TAINT } from '../src/node-lifecycle/node-state.js';

const node = (providerID?: string): V1Node => kubeletNode('node0', { taints: [], ...(providerID && { providerID }) });

describe('getProviderID', () => {
  it('LC-22: node initialized with provider ID', async () => {
    expect(await getProviderID(new FakeCloud(), node('fake://12345'))).toBe('fake://12345');
  });
  it('LC-23: node initialized with provider ID with InstancesV2', async () => {
    expect(await getProviderID(new FakeCloud({ enableInstancesV2: true }), node('fake://12345'))).toBe('fake://12345');
  });
  it('LC-24: cloud implemented with Instances', async () => {
    expect(await getProviderID(new FakeCloud({ extID: { node0: '12345' } }), node())).toBe('fake://12345');
  });
  it('LC-25: cloud implemented with InstancesV2', async () => {
    const cloud = new FakeCloud({ enableInstancesV2: true, providerID: { node0: 'fake://12345' } });
    expect(await getProviderID(cloud, node())).toBe('fake://12345');
  });
  it('LC-26: cloud implemented with InstancesV2 (without providerID) gives "" and no error', async () => {
    expect(await getProviderID(new FakeCloud({ enableInstancesV2: true }), node())).toBe('');
  });
  it('LC-27: cloud implemented with Instances with instance missing', async () => {
    const cloud = new FakeCloud({ extIDErr: { node0: new InstanceNotFoundError() } });
    await expect(getProviderID(cloud, node())).rejects.toThrow(/^instance not found$/);
  });
  it('LC-28: cloud implemented with Instances with unknown error', async () => {
    const cloud = new FakeCloud({ extIDErr: { node0: new Error('unknown error') } });
    await expect(getProviderID(cloud, node())).rejects.toThrow(
      /^failed to get instance ID from cloud provider: unknown error$/,
    );
  });
  it('InstancesV2 returning no metadata gives "" instead of crashing (decision 0100)', async () => {
    const cloud = new FakeCloud({ enableInstancesV2: true, overrideInstanceMetadata: () => undefined });
    expect(await getProviderID(cloud, node())).toBe('');
  });
});

describe('instanceExists / instanceShutdown', () => {
  it('v1: InstanceNotFound from the providerID lookup means "does not exist"', async () => {
    const cloud = new FakeCloud({
      extIDErr: { node0: new InstanceNotFoundError() },
      existsByProviderID: true,
    });
    expect(await instanceExists(cloud, node())).toBe(false);
    expect(cloud.calls).toEqual(['instance-id']);
  });
  it('v1: other providerID errors propagate (the node is skipped, never deleted)', async () => {
    const cloud = new FakeCloud({ extIDErr: { node0: new Error('err!') } });
    await expect(instanceExists(cloud, node())).rejects.toThrow('err!');
  });
  it('v1: a wrapped InstanceNotFound is not "does not exist" (identity, as upstream)', async () => {
    const cloud = new FakeCloud({ enableInstancesV2: false, existsByProviderID: true });
    cloud.extIDErr = { node0: new Error('wrapped', { cause: new InstanceNotFoundError() }) };
    await expect(instanceExists(cloud, node())).rejects.toThrow();
  });
  it('v1: the empty-providerID fake:// still asks InstanceExistsByProviderID', async () => {
    const cloud = new FakeCloud({ existsByProviderID: false });
    expect(await instanceExists(cloud, node())).toBe(false);
    expect(cloud.calls).toEqual(['instance-id', 'instance-exists-by-provider-id']);
  });
  it('v2 uses InstanceExists / InstanceShutdown only', async () => {
    const cloud = new FakeCloud({ enableInstancesV2: true, existsByProviderID: true, nodeShutdown: true });
    expect(await instanceExists(cloud, node())).toBe(true);
    expect(await instanceShutdown(cloud, node())).toBe(true);
    expect(cloud.calls).toEqual(['instance-exists', 'instance-shutdown']);
  });
  it('v1: NotImplemented from InstanceShutdownByProviderID means "not shut down"', async () => {
    const cloud = new FakeCloud({ errShutdownByProviderID: new NotImplementedError() });
    expect(await instanceShutdown(cloud, node('fake://1'))).toBe(false);
  });
  it('v1: InstanceNotFound from the providerID lookup means "not shut down"', async () => {
    const cloud = new FakeCloud({ extIDErr: { node0: new InstanceNotFoundError() }, nodeShutdown: true });
    expect(await instanceShutdown(cloud, node())).toBe(false);
  });
  it('v1: other shutdown errors propagate', async () => {
    const cloud = new FakeCloud({ errShutdownByProviderID: new Error('shutdown error') });
    await expect(instanceShutdown(cloud, node('fake://1'))).rejects.toThrow('shutdown error');
  });
  it('neither facet gives the upstream messages', async () => {
    const cloud = new FakeCloud({ disableInstances: true });
    await expect(instanceExists(cloud, node())).rejects.toThrow(
      'instances interface not supported in the cloud provider',
    );
    await expect(instanceShutdown(cloud, node())).rejects.toThrow('cloud provider does not support instances');
  });
});

describe('node state', () => {
  it('a missing Ready condition counts as Unknown', () => {
    expect(readyConditionStatus(node())).toBe('Unknown');
    expect(
      readyConditionStatus({
        status: { conditions: [{ type: 'Ready', status: 'False' }] },
      }),
    ).toBe('False');
  });
  it('the shutdown taint matches by key and effect', () => {
    const n = node();
    n.spec!.taints = [{ key: 'node.cloudprovider.kubernetes.io/shutdown', effect: 'NoExecute' }];
    expect(hasTaint(n, SHUTDOWN_TAINT)).toBe(false);
    n.spec!.taints.push({
      key: 'node.cloudprovider.kubernetes.io/shutdown',
      effect: 'NoSchedule',
      value: 'x',
    });
    expect(hasTaint(n, SHUTDOWN_TAINT)).toBe(true);
    expect(SHUTDOWN_TAINT).toEqual({
      key: 'node.cloudprovider.kubernetes.io/shutdown',
      effect: 'NoSchedule',
    });
  });
});

describe('non-boolean answers are errors, never "does not exist" (decision 0102)', () => {
  const bad: unknown[] = [undefined, null, 'false', 0];
  for (const value of bad) {
    it(`v1 instanceExistsByProviderID → ${String(value)}: throws`, async () => {
      const cloud = new FakeCloud();
      cloud.instanceExistsByProviderID = async () => value as boolean;
      await expect(instanceExists(cloud, node('fake://1'))).rejects.toThrow(
        /^instanceExistsByProviderID returned .* for node node0, not a boolean$/,
      );
    });
    it(`v2 instanceExists → ${String(value)}: throws`, async () => {
      const cloud = new FakeCloud({ enableInstancesV2: true });
      cloud.instanceExists = async () => value as boolean;
      await expect(instanceExists(cloud, node('fake://1'))).rejects.toThrow(TypeError);
    });
    it(`shutdown → ${String(value)}: throws (v1 and v2)`, async () => {
      const v1 = new FakeCloud();
      v1.instanceShutdownByProviderID = async () => value as boolean;
      await expect(instanceShutdown(v1, node('fake://1'))).rejects.toThrow(TypeError);
      const v2 = new FakeCloud({ enableInstancesV2: true });
      v2.instanceShutdown = async () => value as boolean;
      await expect(instanceShutdown(v2, node('fake://1'))).rejects.toThrow(TypeError);
    });
  }
  it('real booleans pass through unchanged', async () => {
    const cloud = new FakeCloud({ existsByProviderID: false });
    expect(await instanceExists(cloud, node('fake://1'))).toBe(false);
  });
});
