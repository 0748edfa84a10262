import { InstanceNotFoundError } from '@ccm-kit/cloud-provider';
import { kubeletNode } from '@ccm-kit/testing';
import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ForeignNodeError, isLocalNode, LocalInstances } from '../src/instances.js';
import { type Inventory, parseInventory } from '../src/inventory.js';

let inventory: Inventory = parseInventory(`
machines:
  - name: run
    addresses: [{ type: InternalIP, address: 10.0.0.1 }, { type: Hostname, address: run }]
    zone: z1
    region: r1
    instanceType: big
    additionalLabels: { example.com/pool: a }
  - name: stop
    providerID: local://stop-1
    state: stopped
  - name: gone
    state: absent
`);
const instances = new LocalInstances(() => inventory);

const node = (name: string, providerID?: string): V1Node =>
  kubeletNode(name, { taints: [], ...(providerID !== undefined && { providerID }) });

describe('LocalInstances', () => {
  it('running machines exist and are not shut down', async () => {
    expect(await instances.instanceExists(node('run'))).toBe(true);
    expect(await instances.instanceExists(node('x', 'local://run'))).toBe(true);
    expect(await instances.instanceShutdown(node('run', 'local://run'))).toBe(false);
  });

  it('stopped machines exist and are shut down', async () => {
    expect(await instances.instanceExists(node('stop', 'local://stop-1'))).toBe(true);
    expect(await instances.instanceShutdown(node('stop'))).toBe(true);
  });

  it('absent and missing machines do not exist', async () => {
    expect(await instances.instanceExists(node('gone'))).toBe(false);
    expect(await instances.instanceExists(node('gone', 'local://gone'))).toBe(false);
    expect(await instances.instanceExists(node('nobody'))).toBe(false);
    expect(await instances.instanceShutdown(node('nobody'))).toBe(false);
  });

  it('looks up by providerID first, and does not fall back to the name', async () => {
    // The Node is named like a running machine, but its providerID names a machine that is gone.
    expect(await instances.instanceExists(node('run', 'local://replaced'))).toBe(false);
    // A providerID that differs from local://<name> is found by providerID.
    expect(instances.machineOf(node('whatever', 'local://stop-1'))?.name).toBe('stop');
    // Without providerID, the name is used; local://stop is not stop's providerID.
    expect(await instances.instanceExists(node('stop', 'local://stop'))).toBe(false);
  });

  it('returns the metadata of a machine', async () => {
    expect(await instances.instanceMetadata(node('run'))).toEqual({
      providerID: 'local://run',
      nodeAddresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: 'run' },
      ],
      zone: 'z1',
      region: 'r1',
      instanceType: 'big',
      additionalLabels: { 'example.com/pool': 'a' },
    });
    expect(await instances.instanceMetadata(node('stop'))).toEqual({
      providerID: 'local://stop-1',
      nodeAddresses: [],
      additionalLabels: {},
    });
  });

  it('throws InstanceNotFoundError for metadata of missing or absent machines', async () => {
    await expect(instances.instanceMetadata(node('gone'))).rejects.toBeInstanceOf(InstanceNotFoundError);
    await expect(instances.instanceMetadata(node('x', 'local://nope'))).rejects.toThrow(
      'instance not found: no running or stopped machine with providerID local://nope in the inventory',
    );
  });

  it('never says a foreign Node does not exist: it throws ForeignNodeError', async () => {
    const foreign = node('cloud-1', 'aws:///us-east-1a/i-0123');
    await expect(instances.instanceExists(foreign)).rejects.toBeInstanceOf(ForeignNodeError);
    await expect(instances.instanceShutdown(foreign)).rejects.toBeInstanceOf(ForeignNodeError);
    await expect(instances.instanceMetadata(foreign)).rejects.toThrow(/belongs to another cloud/);
    expect(isLocalNode(foreign)).toBe(false);
    expect(isLocalNode(node('new'))).toBe(true);
    expect(isLocalNode(node('a', 'local://a'))).toBe(true);
  });

  it('answers from the current inventory after a reload', async () => {
    const before = inventory;
    inventory = parseInventory('machines: [{ name: gone }]');
    try {
      expect(await instances.instanceExists(node('gone'))).toBe(true);
      expect(await instances.instanceExists(node('run'))).toBe(false);
    } finally {
      inventory = before;
    }
  });
});

describe('LocalInstances batch read', () => {
  it('lists the running and stopped machines in one page, as the per-Node methods answer them', async () => {
    const page = await instances.listInstanceStates(undefined);
    expect(page.nextPageToken).toBeUndefined();
    expect(page.instances.map((i) => [i.providerID, i.shutdown])).toEqual([
      ['local://run', false],
      ['local://stop-1', true],
    ]);
    expect(page.instances[0]!.metadata).toEqual(await instances.instanceMetadata(node('run', 'local://run')));
    await expect(instances.listInstanceStates(undefined, AbortSignal.abort())).rejects.toThrow();
  });
});
