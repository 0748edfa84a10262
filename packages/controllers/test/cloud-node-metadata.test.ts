import { InstanceNotFoundError, NotImplementedError } from '@ccm-kit/cloud-provider';
import { createLogger } from '@ccm-kit/runtime';
import { FakeCloud, kubeletNode } from '@ccm-kit/testing';
import type { V1Node, V1NodeAddress } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  getInstanceMetadata,
  getInstanceNodeAddresses,
  MissingProviderIDError,
} from '../src/cloud-node/instance-metadata.js';

const log = createLogger('test');
const cloudAddresses: V1NodeAddress[] = [
  { type: 'Hostname', address: 'node0.cloud.internal' },
  { type: 'InternalIP', address: '10.0.0.1' },
  { type: 'ExternalIP', address: '132.143.154.163' },
];

const node = (providerID?: string): V1Node => kubeletNode('node0', { taints: [], ...(providerID && { providerID }) });

function strip(m: object | undefined): Record<string, unknown> {
  // Compare like upstream's struct equality: empty strings and absent fields are the same.
  return Object.fromEntries(Object.entries(m ?? {}).filter(([, v]) => v !== '' && v !== undefined));
}

describe('getInstanceMetadata', () => {
  it('NODE-29: cloud implemented with Instances and provider ID', async () => {
    const cloud = new FakeCloud({ extID: { node0: '12345' }, addresses: cloudAddresses });
    const md = await getInstanceMetadata(cloud, node(), log);
    expect(strip(md)).toEqual({ providerID: 'fake://12345', nodeAddresses: cloudAddresses });
  });

  it('NODE-30: cloud implemented with Instances (providerID not implemented)', async () => {
    const cloud = new FakeCloud({
      extIDErr: { node0: new NotImplementedError() },
      addresses: cloudAddresses,
    });
    const md = await getInstanceMetadata(cloud, node(), log);
    expect(strip(md)).toEqual({ nodeAddresses: cloudAddresses });
    expect(cloud.calls).toContain('node-addresses-by-provider-id');
  });

  it('NODE-31: Instances (providerID not implemented) and node with providerID: InstanceID is not consulted', async () => {
    const cloud = new FakeCloud({
      extIDErr: { node0: new NotImplementedError() },
      addresses: cloudAddresses,
    });
    const md = await getInstanceMetadata(cloud, node('fake://asdasd'), log);
    expect(strip(md)).toEqual({ providerID: 'fake://asdasd', nodeAddresses: cloudAddresses });
    expect(cloud.calls).not.toContain('instance-id');
  });

  it('NODE-32: cloud implemented with InstancesV2 (with providerID)', async () => {
    const cloud = new FakeCloud({
      enableInstancesV2: true,
      providerID: { node0: 'fake://12345' },
      instanceTypes: { node0: 't1.micro' },
      addresses: cloudAddresses,
    });
    const md = await getInstanceMetadata(cloud, node(), log);
    expect(strip(md)).toEqual({ providerID: 'fake://12345', nodeAddresses: cloudAddresses });
  });

  it('NODE-33: cloud implemented with InstancesV2 (without providerID) is an error carrying the metadata', async () => {
    const cloud = new FakeCloud({ enableInstancesV2: true, addresses: cloudAddresses });
    const err = await getInstanceMetadata(cloud, node(), log).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MissingProviderIDError);
    expect((err as Error).message).toBe('cloud provider does not set node provider ID for node node0');
    expect(strip((err as MissingProviderIDError).metadata)).toEqual({ nodeAddresses: cloudAddresses });
  });

  it("NODE-34: InstancesV2 (without providerID) and node with providerID uses the node's", async () => {
    const cloud = new FakeCloud({
      enableInstancesV2: true,
      instanceTypes: { 'fake://12345': 't1.micro' },
      addresses: cloudAddresses,
    });
    const md = await getInstanceMetadata(cloud, node('fake://12345'), log);
    expect(strip(md)).toEqual({
      providerID: 'fake://12345',
      instanceType: 't1.micro',
      nodeAddresses: cloudAddresses,
    });
  });

  it('v1: InstanceNotFound from InstanceID is an error (the node is requeued)', async () => {
    const cloud = new FakeCloud({
      extIDErr: { node0: new InstanceNotFoundError() },
      addresses: cloudAddresses,
    });
    await expect(getInstanceMetadata(cloud, node(), log)).rejects.toBeInstanceOf(InstanceNotFoundError);
  });

  it('v1 + Zones: zone and region come from GetZoneByProviderID', async () => {
    const cloud = new FakeCloud({
      extID: { node0: '12345' },
      addresses: cloudAddresses,
      zone: { failureDomain: 'us-west-1a', region: 'us-west' },
    });
    const md = await getInstanceMetadata(cloud, node(), log);
    expect(md?.zone).toBe('us-west-1a');
    expect(md?.region).toBe('us-west');
    expect(cloud.calls).toEqual([
      'instance-id',
      'node-addresses-by-provider-id',
      'instance-type-by-provider-id',
      'get-zone-by-provider-id',
    ]);
  });

  it('v1: both address lookups failing gives the combined upstream message', async () => {
    const cloud = new FakeCloud({ extID: { node0: '12345' }, err: new Error('boom') });
    await expect(getInstanceMetadata(cloud, node(), log)).rejects.toThrow(
      'error fetching node by provider ID: boom, and error by node name: boom',
    );
  });

  it('neither facet: failed to get instances from cloud provider', async () => {
    const cloud = new FakeCloud({ disableInstances: true });
    await expect(getInstanceMetadata(cloud, node(), log)).rejects.toThrow(
      'failed to get instances from cloud provider',
    );
  });

  it('InstancesV2 returning no metadata gives undefined (NODE-07 path)', async () => {
    const cloud = new FakeCloud({ enableInstancesV2: true, overrideInstanceMetadata: () => undefined });
    expect(await getInstanceMetadata(cloud, node('x'), log)).toBeUndefined();
  });
});

describe('getInstanceNodeAddresses (status loop)', () => {
  it('v1 makes one cloud call per node when the providerID lookup succeeds', async () => {
    const cloud = new FakeCloud({ addresses: cloudAddresses });
    const md = await getInstanceNodeAddresses(cloud, node());
    expect(md).toEqual({ nodeAddresses: cloudAddresses });
    expect(cloud.calls).toEqual(['node-addresses-by-provider-id']);
  });

  it('v2 returns the full metadata', async () => {
    const cloud = new FakeCloud({ enableInstancesV2: true, addresses: cloudAddresses });
    const md = await getInstanceNodeAddresses(cloud, node('fake://1'));
    expect(md?.nodeAddresses).toEqual(cloudAddresses);
    expect(cloud.calls).toEqual(['instance-metadata-by-provider-id']);
  });
});
