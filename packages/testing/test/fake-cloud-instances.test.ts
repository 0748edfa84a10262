import { InstanceNotFoundError } from '@ccm-kit/cloud-provider';
import { FakeCloud } from '@ccm-kit/testing';
import type { V1NodeAddress } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { node } from './fake-cloud-fixture.js';

const ADDRS: V1NodeAddress[] = [{ type: 'InternalIP', address: '10.0.0.7' }];

describe('FakeCloud instance table', () => {
  it('answers InstancesV2 from a machine registered by node name', async () => {
    const cloud = new FakeCloud({ enableInstancesV2: true, metadataErr: new Error('knob not consulted') });
    cloud.setInstance('node-a', {
      providerID: 'fake://i-a',
      addresses: ADDRS,
      instanceType: 'm5.large',
      zone: 'z1',
      region: 'r1',
      additionalLabels: { 'example.com/pool': 'blue' },
    });
    expect(await cloud.instanceExists(node('node-a'))).toBe(true);
    expect(await cloud.instanceShutdown(node('node-a'))).toBe(false);
    expect(await cloud.instanceMetadata(node('node-a'))).toEqual({
      providerID: 'fake://i-a',
      instanceType: 'm5.large',
      nodeAddresses: ADDRS,
      zone: 'z1',
      region: 'r1',
      additionalLabels: { 'example.com/pool': 'blue' },
    });
    expect(cloud.calls).toEqual(['instance-exists', 'instance-shutdown', 'instance-metadata-by-provider-id']);
  });

  it('matches a node by spec.providerID before its name, also when registered under the name', async () => {
    const cloud = new FakeCloud({ enableInstancesV2: true });
    cloud.setInstance('node-a', { providerID: 'fake://i-a', instanceType: 'by-name-entry' });
    cloud.setInstance('fake://i-b', { instanceType: 'by-id-entry' });
    expect((await cloud.instanceMetadata(node('renamed', 'fake://i-a')))?.instanceType).toBe('by-name-entry');
    expect((await cloud.instanceMetadata(node('node-a', 'fake://i-b')))?.instanceType).toBe('by-id-entry');
    expect((await cloud.instanceMetadata(node('node-b', 'fake://i-b')))?.providerID).toBe('fake://i-b');
  });

  it('falls back to the upstream knobs for unregistered nodes', async () => {
    const cloud = new FakeCloud({ enableInstancesV2: true, existsByProviderID: true, nodeShutdown: true });
    cloud.setInstance('node-a', { shutdown: false });
    expect(await cloud.instanceShutdown(node('node-a'))).toBe(false);
    expect(await cloud.instanceShutdown(node('node-b'))).toBe(true);
    expect(await cloud.instanceExists(node('node-b'))).toBe(true);
  });

  it('setInstance merges into the stored machine; defaults are exists true, shutdown false', async () => {
    const cloud = new FakeCloud({ enableInstancesV2: true });
    const created = cloud.setInstance('node-a', { instanceType: 't1' });
    expect(created).toMatchObject({
      key: 'node-a',
      exists: true,
      shutdown: false,
      instanceType: 't1',
      zone: '',
    });
    expect(created.providerID).toBeUndefined();
    cloud.setInstance('node-a', { shutdown: true });
    expect(cloud.getInstance('node-a')).toMatchObject({ instanceType: 't1', shutdown: true });
    expect(await cloud.instanceShutdown(node('node-a'))).toBe(true);
    expect(cloud.listInstances().map((i) => i.key)).toEqual(['node-a']);
  });

  it('a machine with exists: false answers not-exists and InstanceNotFoundError', async () => {
    const cloud = new FakeCloud({ enableInstancesV2: true, existsByProviderID: true });
    cloud.setInstance('fake://gone', { exists: false });
    const n = node('node-g', 'fake://gone');
    expect(await cloud.instanceExists(n)).toBe(false);
    expect(await cloud.instanceExistsByProviderID('fake://gone')).toBe(false);
    await expect(cloud.instanceMetadata(n)).rejects.toBeInstanceOf(InstanceNotFoundError);
    await expect(cloud.instanceID('fake://gone')).rejects.toBeInstanceOf(InstanceNotFoundError);
    await expect(cloud.nodeAddressesByProviderID('fake://gone')).rejects.toBeInstanceOf(InstanceNotFoundError);
    await expect(cloud.getZoneByProviderID('fake://gone')).rejects.toBeInstanceOf(InstanceNotFoundError);
  });

  it('deleteInstance forgets the machine, so the upstream knobs answer again', async () => {
    const cloud = new FakeCloud({ enableInstancesV2: true });
    cloud.setInstance('node-a', {});
    expect(await cloud.instanceExists(node('node-a'))).toBe(true);
    expect(cloud.deleteInstance('node-a')).toBe(true);
    expect(cloud.deleteInstance('node-a')).toBe(false);
    expect(await cloud.instanceExists(node('node-a'))).toBe(false);
    expect(cloud.getInstance('node-a')).toBeUndefined();
  });

  it('re-registering with a new providerID drops the old providerID index', async () => {
    const cloud = new FakeCloud();
    cloud.setInstance('node-a', { providerID: 'fake://old', instanceType: 't' });
    cloud.setInstance('node-a', { providerID: 'fake://new' });
    expect(await cloud.instanceTypeByProviderID('fake://new')).toBe('t');
    expect(await cloud.instanceTypeByProviderID('fake://old')).toBe('');
  });

  it('answers the v1 and zone methods by node name or providerID', async () => {
    const cloud = new FakeCloud({ err: new Error('knob not consulted'), addresses: [] });
    cloud.setInstance('node-a', {
      providerID: 'acme://region/i-123',
      addresses: ADDRS,
      instanceType: 't3',
      zone: 'z',
      region: 'r',
    });
    cloud.setInstance('node-b', {});
    expect(await cloud.nodeAddresses('node-a')).toEqual(ADDRS);
    expect(await cloud.nodeAddressesByProviderID('acme://region/i-123')).toEqual(ADDRS);
    expect(await cloud.instanceID('node-a')).toBe('region/i-123');
    expect(await cloud.instanceID('node-b')).toBe('node-b');
    expect(await cloud.instanceType('node-a')).toBe('t3');
    expect(await cloud.instanceTypeByProviderID('acme://region/i-123')).toBe('t3');
    expect(await cloud.instanceExistsByProviderID('acme://region/i-123')).toBe(true);
    expect(await cloud.instanceShutdownByProviderID('acme://region/i-123')).toBe(false);
    expect(await cloud.getZoneByNodeName('node-a')).toEqual({ failureDomain: 'z', region: 'r' });
    expect(await cloud.getZoneByProviderID('acme://region/i-123')).toEqual({
      failureDomain: 'z',
      region: 'r',
    });
    await expect(cloud.nodeAddresses('unregistered')).rejects.toThrow('knob not consulted');
  });

  it('returns copies: changing an answer or the spec does not change the table', async () => {
    const cloud = new FakeCloud({ enableInstancesV2: true });
    const addresses = [{ type: 'InternalIP', address: '10.0.0.1' }];
    const labels = { a: '1' };
    cloud.setInstance('node-a', { addresses, additionalLabels: labels });
    addresses[0]!.address = 'x';
    labels.a = 'x';
    const md = await cloud.instanceMetadata(node('node-a'));
    md!.nodeAddresses![0]!.address = 'y';
    expect(await cloud.instanceMetadata(node('node-a'))).toMatchObject({
      nodeAddresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      additionalLabels: { a: '1' },
    });
  });

  it('rejects an empty key', () => {
    expect(() => new FakeCloud().setInstance('', {})).toThrow(/key/);
  });
});
