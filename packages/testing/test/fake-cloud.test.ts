import {
  ImplementedElsewhereError,
  InstanceNotFoundError,
  NotImplementedError,
  type Route,
} from '@ccm-kit/cloud-provider';
import { FakeCloud, loadBalancerService, type UpdateBalancerCall } from '@ccm-kit/testing';
import type { V1NodeAddress, V1PersistentVolume, V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { node } from './fake-cloud-fixture.js';

const CLUSTER = 'kubernetes';

const service = (name: string, uid = `uid-${name}`, spec: Partial<V1Service['spec']> = {}): V1Service =>
  loadBalancerService(name, { uid, ports: [{ port: 80, protocol: 'TCP' }], spec });

const ADDRS: V1NodeAddress[] = [
  { type: 'Hostname', address: 'node0.cloud.internal' },
  { type: 'InternalIP', address: '10.0.0.1' },
  { type: 'ExternalIP', address: '132.143.154.163' },
];

describe('FakeCloud facets', () => {
  it('enables every facet except InstancesV2 by default', () => {
    const cloud = new FakeCloud();
    expect(cloud.loadBalancer()).toBe(cloud);
    expect(cloud.instances()).toBe(cloud);
    expect(cloud.zones()).toBe(cloud);
    expect(cloud.clusters()).toBe(cloud);
    expect(cloud.routes()).toBe(cloud);
    expect(cloud.instancesV2()).toBeUndefined();
  });

  it.each([
    ['disableInstances', 'instances'],
    ['disableRoutes', 'routes'],
    ['disableLoadBalancers', 'loadBalancer'],
    ['disableZones', 'zones'],
    ['disableClusters', 'clusters'],
  ] as const)('%s makes %s() return undefined', (knob, accessor) => {
    const cloud = new FakeCloud({ [knob]: true });
    expect(cloud[accessor]()).toBeUndefined();
    cloud[knob] = false;
    expect(cloud[accessor]()).toBe(cloud);
  });

  it('enableInstancesV2 makes instancesV2() return the fake', () => {
    const cloud = new FakeCloud({ enableInstancesV2: true });
    expect(cloud.instancesV2()).toBe(cloud);
  });

  it('providerName defaults to fake and follows provider; hasClusterID is true', () => {
    const cloud = new FakeCloud();
    expect(cloud.providerName()).toBe('fake');
    cloud.provider = 'acme';
    expect(cloud.providerName()).toBe('acme');
    cloud.provider = '';
    expect(cloud.providerName()).toBe('fake');
    expect(cloud.hasClusterID()).toBe(true);
  });

  it('rejects unknown options by name', () => {
    expect(() => new FakeCloud({ bogus: 1 } as never)).toThrow(/unknown option "bogus"/);
    expect(() => new FakeCloud({ callLogLimit: 0 })).toThrow(/callLogLimit/);
  });
});

describe('FakeCloud load balancer (upstream knobs)', () => {
  it('getLoadBalancer follows exists and externalIP, records nothing, and throws err', async () => {
    const cloud = new FakeCloud();
    const svc = service('a');
    expect(await cloud.getLoadBalancer(CLUSTER, svc)).toBeUndefined();
    cloud.exists = true;
    expect(await cloud.getLoadBalancer(CLUSTER, svc)).toEqual({ ingress: [{ ip: '' }] });
    cloud.externalIP = '1.2.3.4';
    expect(await cloud.getLoadBalancer(CLUSTER, svc)).toEqual({ ingress: [{ ip: '1.2.3.4' }] });
    cloud.err = new Error('boom');
    await expect(cloud.getLoadBalancer(CLUSTER, svc)).rejects.toBe(cloud.err);
    expect(cloud.calls).toEqual([]);
    expect(cloud.callCount('getLoadBalancer')).toBe(4);
  });

  it('getLoadBalancerName is the default name and records nothing', () => {
    const cloud = new FakeCloud();
    const svc = service('a', '5d0a7d2e-1b2c-4d5e-8f90-123456789abc');
    expect(cloud.getLoadBalancerName(CLUSTER, svc)).toBe('a5d0a7d2e1b2c4d5e8f90123456789ab');
    expect(cloud.getLoadBalancerName(CLUSTER, service('b', ''))).toBe('a');
    expect(cloud.calls).toEqual([]);
  });

  it('ensureLoadBalancer records create then get-zone, stores the balancer and returns the status', async () => {
    const cloud = new FakeCloud({
      zone: { failureDomain: 'z1', region: 'us-central' },
      externalIP: '5.6.7.8',
    });
    const svc = service('a', 'uid-a', {
      loadBalancerIP: '10.9.9.9',
      ports: [{ port: 80, protocol: 'UDP' }, { port: 443 }],
    });
    const nodes = [node('n1'), node('n2')];
    const status = await cloud.ensureLoadBalancer(CLUSTER, svc, nodes);
    expect(status).toEqual({
      ingress: [
        {
          ip: '5.6.7.8',
          ports: [
            { port: 80, protocol: 'UDP' },
            { port: 443, protocol: 'TCP' },
          ],
        },
      ],
    });
    expect(cloud.calls).toEqual(['create', 'get-zone']);
    const name = cloud.getLoadBalancerName(CLUSTER, svc);
    expect(cloud.balancers.get(name)).toEqual({
      name,
      region: 'us-central',
      loadBalancerIP: '10.9.9.9',
      ports: [{ port: 80, protocol: 'UDP' }, { port: 443 }],
      hosts: nodes,
      clusterName: CLUSTER,
      service: { namespace: 'default', name: 'a', uid: 'uid-a' },
    });
    expect(cloud.ensureCalls).toEqual([{ service: svc, hosts: nodes }]);
    nodes.push(node('n3'));
    expect(cloud.balancers.get(name)?.hosts).toHaveLength(2);
  });

  it('balancerIPMode sets the ingress ipMode of ensureLoadBalancer', async () => {
    const cloud = new FakeCloud({ balancerIPMode: 'Proxy' });
    const status = await cloud.ensureLoadBalancer(CLUSTER, service('a'), []);
    expect(status.ingress?.[0]?.ipMode).toBe('Proxy');
  });

  it('ensureLoadBalancer with err records create and get-zone, adds the ensure call, stores nothing', async () => {
    const err = new Error('cloud down');
    const cloud = new FakeCloud({ err });
    await expect(cloud.ensureLoadBalancer(CLUSTER, service('a'), [node('n1')])).rejects.toBe(err);
    expect(cloud.calls).toEqual(['create', 'get-zone']);
    expect(cloud.ensureCalls).toHaveLength(1);
    expect(cloud.balancers.size).toBe(0);
  });

  it('ensureCallCb runs after the call is recorded and may throw a provider error', async () => {
    const seen: UpdateBalancerCall[] = [];
    const cloud = new FakeCloud({
      ensureCallCb: (call) => {
        expect(cloud.ensureCalls).toContain(call);
        seen.push(call);
      },
    });
    const svc = service('a');
    await cloud.ensureLoadBalancer(CLUSTER, svc, [node('n1')]);
    expect(seen).toEqual([{ service: svc, hosts: [node('n1')] }]);
    cloud.ensureCallCb = () => {
      throw new ImplementedElsewhereError();
    };
    await expect(cloud.ensureLoadBalancer(CLUSTER, svc, [])).rejects.toBeInstanceOf(ImplementedElsewhereError);
  });

  it('an async ensureCallCb blocks later ensure calls until it settles (upstream lock)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const order: string[] = [];
    const cloud = new FakeCloud({
      ensureCallCb: async (call) => {
        order.push(`cb ${call.service.metadata?.name}`);
        if (call.service.metadata?.name === 'first') await gate;
      },
    });
    const first = cloud.ensureLoadBalancer(CLUSTER, service('first'), []).then(() => order.push('first done'));
    const second = cloud.ensureLoadBalancer(CLUSTER, service('second'), []).then(() => order.push('second done'));
    const update = cloud.updateLoadBalancer(CLUSTER, service('third'), []).then(() => order.push('update done'));
    await update;
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual(['cb first', 'update done']);
    release();
    await Promise.all([first, second]);
    expect(order.slice(0, 2)).toEqual(['cb first', 'update done']);
    expect(order.slice(2).sort()).toEqual(['cb second', 'first done', 'second done']);
    expect(order.indexOf('cb second')).toBeLessThan(order.indexOf('second done'));
  });

  it('updateLoadBalancer records update, adds the update call, runs updateCallCb and throws err', async () => {
    const seen: UpdateBalancerCall[] = [];
    const cloud = new FakeCloud({ updateCallCb: (c) => void seen.push(c) });
    const svc = service('a');
    await cloud.ensureLoadBalancer(CLUSTER, svc, [node('n1')]);
    cloud.clearCalls();
    await cloud.updateLoadBalancer(CLUSTER, svc, [node('n1'), node('n2')]);
    expect(cloud.calls).toEqual(['update']);
    expect(cloud.updateCalls).toEqual([{ service: svc, hosts: [node('n1'), node('n2')] }]);
    expect(seen).toEqual(cloud.updateCalls);
    expect(cloud.balancers.get(cloud.getLoadBalancerName(CLUSTER, svc))?.hosts).toEqual([node('n1'), node('n2')]);
    cloud.err = new Error('error updating');
    await expect(cloud.updateLoadBalancer(CLUSTER, svc, [])).rejects.toThrow('error updating');
    expect(cloud.updateCalls).toHaveLength(2);
    expect(cloud.balancers.get(cloud.getLoadBalancerName(CLUSTER, svc))?.hosts).toHaveLength(2);
  });

  it('ensureLoadBalancerDeleted records delete, removes the balancer, and throws err unchanged', async () => {
    const cloud = new FakeCloud();
    const svc = service('a');
    await cloud.ensureLoadBalancer(CLUSTER, svc, []);
    cloud.clearCalls();
    await cloud.ensureLoadBalancerDeleted(CLUSTER, svc);
    expect(cloud.calls).toEqual(['delete']);
    expect(cloud.balancers.size).toBe(0);
    await cloud.ensureLoadBalancerDeleted(CLUSTER, svc);
    cloud.err = new Error('error Deleting the Loadbalancer');
    await expect(cloud.ensureLoadBalancerDeleted(CLUSTER, svc)).rejects.toThrow(/^error Deleting the Loadbalancer$/);
    expect(cloud.calls).toEqual(['delete', 'delete', 'delete']);
  });

  it('clearCalls empties calls only; clearBalancerCalls empties ensure/update calls', async () => {
    const cloud = new FakeCloud();
    await cloud.ensureLoadBalancer(CLUSTER, service('a'), []);
    await cloud.updateLoadBalancer(CLUSTER, service('a'), []);
    cloud.clearCalls();
    expect(cloud.calls).toEqual([]);
    expect(cloud.ensureCalls).toHaveLength(1);
    expect(cloud.updateCalls).toHaveLength(1);
    cloud.clearBalancerCalls();
    expect(cloud.ensureCalls).toEqual([]);
    expect(cloud.updateCalls).toEqual([]);
  });
});

describe('FakeCloud load-balancer listing (beyond upstream)', () => {
  it('lists the balancers of the cluster with their Service identity, paged, and not deleted ones', async () => {
    const cloud = new FakeCloud();
    cloud.balancerListPageSize = 1;
    for (const n of ['a', 'b', 'c']) await cloud.ensureLoadBalancer(CLUSTER, service(n), []);
    await cloud.ensureLoadBalancer('other-cluster', service('d'), []);
    await cloud.ensureLoadBalancerDeleted(CLUSTER, service('b'));
    const first = await cloud.listLoadBalancers(CLUSTER);
    expect(first.loadBalancers).toHaveLength(1);
    expect(first.nextPageToken).toBe('1');
    const second = await cloud.listLoadBalancers(CLUSTER, { pageToken: first.nextPageToken });
    expect(second.nextPageToken).toBeUndefined();
    const all = [...first.loadBalancers, ...second.loadBalancers];
    expect(all.map((e) => e.service)).toEqual([
      { namespace: 'default', name: 'a', uid: 'uid-a' },
      { namespace: 'default', name: 'c', uid: 'uid-c' },
    ]);
    expect(all[0]?.name).toBe(cloud.getLoadBalancerName(CLUSTER, service('a')));
    expect(cloud.callCount('listLoadBalancers')).toBe(2);
    expect(cloud.calls).not.toContain('list');
  });

  it('reports a balancer without a Service record as malformed, and throws err', async () => {
    const cloud = new FakeCloud();
    cloud.balancers.set('bare', { name: 'bare', region: '', loadBalancerIP: '', ports: [], hosts: [] });
    expect((await cloud.listLoadBalancers(CLUSTER)).loadBalancers).toEqual([
      { name: 'bare', malformed: 'no complete Service record (namespace, name, uid)' },
    ]);
    cloud.err = new Error('boom');
    await expect(cloud.listLoadBalancers(CLUSTER)).rejects.toThrow('boom');
    await expect(cloud.listLoadBalancers(CLUSTER, { pageToken: 'x' })).rejects.toThrow();
  });
});

describe('FakeCloud instances v1 (upstream knobs)', () => {
  it('nodeAddresses and nodeAddressesByProviderID answer addresses (copies) or err', async () => {
    const cloud = new FakeCloud();
    cloud.setNodeAddresses(ADDRS);
    const got = await cloud.nodeAddresses('node0');
    expect(got).toEqual(ADDRS);
    got[0]!.address = 'changed';
    expect(await cloud.nodeAddressesByProviderID('fake://1')).toEqual(ADDRS);
    expect(cloud.calls).toEqual(['node-addresses', 'node-addresses-by-provider-id']);
    cloud.err = new Error('e');
    await expect(cloud.nodeAddresses('node0')).rejects.toBe(cloud.err);
    await expect(cloud.nodeAddressesByProviderID('fake://1')).rejects.toBe(cloud.err);
  });

  it('instanceID answers extID, "" when missing, and extIDErr first', async () => {
    const cloud = new FakeCloud({
      extID: { node0: '12345' },
      extIDErr: { node1: new InstanceNotFoundError() },
    });
    expect(await cloud.instanceID('node0')).toBe('12345');
    expect(await cloud.instanceID('nodeX')).toBe('');
    expect(await cloud.instanceID('toString')).toBe('');
    await expect(cloud.instanceID('node1')).rejects.toBeInstanceOf(InstanceNotFoundError);
    cloud.err = new Error('not used by instanceID');
    expect(await cloud.instanceID('node0')).toBe('12345');
    expect(cloud.calls).toEqual(['instance-id', 'instance-id', 'instance-id', 'instance-id', 'instance-id']);
  });

  it('instanceTypes is keyed by node name for instanceType and by providerID string for instanceTypeByProviderID', async () => {
    const cloud = new FakeCloud({ instanceTypes: { node0: 't1.micro', 'fake://12345': 'm5.large' } });
    cloud.err = new Error('never returned');
    expect(await cloud.instanceType('node0')).toBe('t1.micro');
    expect(await cloud.instanceType('fake://12345')).toBe('m5.large');
    expect(await cloud.instanceTypeByProviderID('fake://12345')).toBe('m5.large');
    expect(await cloud.instanceTypeByProviderID('node0')).toBe('t1.micro');
    expect(await cloud.instanceTypeByProviderID('fake://missing')).toBe('');
    expect(cloud.calls).toEqual([
      'instance-type',
      'instance-type',
      'instance-type-by-provider-id',
      'instance-type-by-provider-id',
      'instance-type-by-provider-id',
    ]);
  });

  it('instanceExistsByProviderID answers existsByProviderID or errByProviderID', async () => {
    const cloud = new FakeCloud();
    expect(await cloud.instanceExistsByProviderID('fake://1')).toBe(false);
    cloud.existsByProviderID = true;
    expect(await cloud.instanceExistsByProviderID('fake://1')).toBe(true);
    cloud.errByProviderID = new Error('lookup failed');
    await expect(cloud.instanceExistsByProviderID('fake://1')).rejects.toThrow('lookup failed');
    expect(cloud.calls).toEqual(Array(3).fill('instance-exists-by-provider-id'));
  });

  it('instanceShutdownByProviderID answers nodeShutdown or errShutdownByProviderID; empty ID is an error', async () => {
    const cloud = new FakeCloud();
    expect(await cloud.instanceShutdownByProviderID('fake://1')).toBe(false);
    cloud.nodeShutdown = true;
    expect(await cloud.instanceShutdownByProviderID('fake://1')).toBe(true);
    await expect(cloud.instanceShutdownByProviderID('')).rejects.toThrow(
      /^cannot shutdown instance with empty providerID$/,
    );
    cloud.errShutdownByProviderID = new Error('shutdown lookup failed');
    await expect(cloud.instanceShutdownByProviderID('fake://1')).rejects.toThrow('shutdown lookup failed');
    expect(cloud.calls).toEqual(Array(4).fill('instance-shutdown-by-provider-id'));
  });

  it('addSSHKeyToAllInstances is NotImplemented and currentNodeName echoes; neither records a call', async () => {
    const cloud = new FakeCloud();
    await expect(cloud.addSSHKeyToAllInstances('root', new Uint8Array())).rejects.toBeInstanceOf(NotImplementedError);
    expect(await cloud.currentNodeName('host-1')).toBe('host-1');
    expect(cloud.calls).toEqual([]);
  });
});

describe('FakeCloud instancesV2 (upstream knobs)', () => {
  it('instanceExists and instanceShutdown use the v1 knobs and record their own names', async () => {
    const cloud = new FakeCloud({ enableInstancesV2: true, existsByProviderID: true, nodeShutdown: true });
    expect(await cloud.instanceExists(node('node0'))).toBe(true);
    expect(await cloud.instanceShutdown(node('node0'))).toBe(true);
    cloud.errByProviderID = new Error('exists failed');
    cloud.errShutdownByProviderID = new Error('shutdown failed');
    await expect(cloud.instanceExists(node('node0'))).rejects.toThrow('exists failed');
    await expect(cloud.instanceShutdown(node('node0'))).rejects.toThrow('shutdown failed');
    expect(cloud.calls).toEqual(['instance-exists', 'instance-shutdown', 'instance-exists', 'instance-shutdown']);
  });

  it('instanceMetadata builds metadata from providerID[name], instanceTypes[spec.providerID], addresses, zone and additionalLabels', async () => {
    const cloud = new FakeCloud({
      enableInstancesV2: true,
      providerID: { node0: 'fake://12345' },
      instanceTypes: { node0: 'by-name', 'fake://12345': 't1.micro' },
      zone: { failureDomain: 'us-west-1a', region: 'us-west' },
      additionalLabels: { 'example.com/pool': 'a' },
      addresses: ADDRS,
    });
    expect(await cloud.instanceMetadata(node('node0'))).toEqual({
      providerID: 'fake://12345',
      instanceType: '',
      nodeAddresses: ADDRS,
      zone: 'us-west-1a',
      region: 'us-west',
      additionalLabels: { 'example.com/pool': 'a' },
    });
    expect(await cloud.instanceMetadata(node('other', 'fake://12345'))).toMatchObject({
      providerID: '',
      instanceType: 't1.micro',
    });
    expect(cloud.calls).toEqual(['instance-metadata-by-provider-id', 'instance-metadata-by-provider-id']);
  });

  it('metadataErr is thrown (the metadata cannot travel with it) and the call is recorded', async () => {
    const err = new Error('metadata failed');
    const cloud = new FakeCloud({ enableInstancesV2: true, metadataErr: err });
    await expect(cloud.instanceMetadata(node('node0'))).rejects.toBe(err);
    expect(cloud.calls).toEqual(['instance-metadata-by-provider-id']);
  });

  it('overrideInstanceMetadata replaces instanceMetadata and records no call', async () => {
    const seen: string[] = [];
    const cloud = new FakeCloud({
      enableInstancesV2: true,
      metadataErr: new Error('not used'),
      overrideInstanceMetadata: (n) => {
        seen.push(n.metadata?.name ?? '');
        return undefined;
      },
    });
    expect(await cloud.instanceMetadata(node('node0'))).toBeUndefined();
    cloud.overrideInstanceMetadata = async () => ({ providerID: 'fake://x' });
    expect(await cloud.instanceMetadata(node('node1'))).toEqual({ providerID: 'fake://x' });
    expect(seen).toEqual(['node0']);
    expect(cloud.calls).toEqual([]);
    expect(cloud.callCount('instanceMetadata')).toBe(2);
  });
});

describe('FakeCloud zones, clusters, volumes and machines', () => {
  it('zone methods answer zone (copies) or err and record their names', async () => {
    const zone = { failureDomain: 'us-west-1a', region: 'us-west' };
    const cloud = new FakeCloud({ zone });
    const z = await cloud.getZone();
    expect(z).toEqual(zone);
    z.region = 'changed';
    expect(await cloud.getZoneByProviderID('fake://1')).toEqual(zone);
    expect(await cloud.getZoneByNodeName('node0')).toEqual(zone);
    expect(cloud.calls).toEqual(['get-zone', 'get-zone-by-provider-id', 'get-zone-by-node-name']);
    cloud.err = new Error('zone failed');
    await expect(cloud.getZone()).rejects.toBe(cloud.err);
    await expect(cloud.getZoneByProviderID('fake://1')).rejects.toBe(cloud.err);
    await expect(cloud.getZoneByNodeName('node0')).rejects.toBe(cloud.err);
  });

  it('listClusters and master answer clusterList and masterName, or err, recording nothing', async () => {
    const cloud = new FakeCloud({ clusterList: ['c1', 'c2'], masterName: 'master.example' });
    expect(await cloud.listClusters()).toEqual(['c1', 'c2']);
    expect(await cloud.master('c1')).toBe('master.example');
    cloud.err = new Error('clusters failed');
    await expect(cloud.listClusters()).rejects.toBe(cloud.err);
    await expect(cloud.master('c1')).rejects.toBe(cloud.err);
    expect(cloud.calls).toEqual([]);
  });

  it('getLabelsForVolume answers volumeLabelMap or "label not found for volume"', async () => {
    const cloud = new FakeCloud({ volumeLabelMap: { pv1: { 'topology.kubernetes.io/zone': 'z1' } } });
    const pv = (name: string): V1PersistentVolume => ({ metadata: { name } });
    expect(await cloud.getLabelsForVolume(pv('pv1'))).toEqual({ 'topology.kubernetes.io/zone': 'z1' });
    await expect(cloud.getLabelsForVolume(pv('pv2'))).rejects.toThrow(/^label not found for volume$/);
    expect(cloud.calls).toEqual([]);
  });

  it('list records list and filters machines by pattern, or throws err', async () => {
    const cloud = new FakeCloud({ machines: ['node-a', 'node-b', 'other'] });
    expect(await cloud.list('^node-')).toEqual(['node-a', 'node-b']);
    expect(await cloud.list(/b$/g)).toEqual(['node-b']);
    expect(await cloud.list(/b$/g)).toEqual(['node-b']);
    cloud.err = new Error('list failed');
    await expect(cloud.list('.')).rejects.toBe(cloud.err);
    expect(cloud.calls).toEqual(['list', 'list', 'list', 'list']);
  });
});

describe('FakeCloud routes', () => {
  const route = (targetNode: string, destinationCIDR: string, extra: Partial<Route> = {}): Route => ({
    targetNode,
    destinationCIDR,
    ...extra,
  });

  it('routeMap exists from the start; createRoute stores a named copy and listRoutes returns copies of the cluster', async () => {
    const cloud = new FakeCloud();
    const r = route('node-1', '10.120.0.0/24', {
      name: 'ignored',
      enableNodeAddresses: true,
      targetNodeAddresses: [{ type: 'InternalIP', address: '10.0.1.1' }],
    });
    await cloud.createRoute('my-k8s', 'uid-1', r);
    await cloud.createRoute('other', 'uid-2', route('node-2', '10.0.0.0/24'));
    expect([...cloud.routeMap.keys()]).toEqual(['my-k8s-node-1-10.120.0.0/24', 'other-node-2-10.0.0.0/24']);
    const listed = await cloud.listRoutes('my-k8s');
    expect(listed).toEqual([{ ...r, name: 'my-k8s-node-1-10.120.0.0/24' }]);
    listed[0]!.targetNodeAddresses![0]!.address = 'changed';
    r.targetNodeAddresses![0]!.address = 'changed too';
    expect((await cloud.listRoutes('my-k8s'))[0]?.targetNodeAddresses).toEqual([
      { type: 'InternalIP', address: '10.0.1.1' },
    ]);
    expect(cloud.calls).toEqual(['create-route', 'create-route', 'list-routes', 'list-routes']);
  });

  it('a seeded routeMap is listed; a missing routeMap is recreated instead of failing', async () => {
    const cloud = new FakeCloud();
    cloud.routeMap.set('r1', {
      clusterName: 'my-k8s',
      route: route('node-x', '10.120.2.0/24', { name: 'r1' }),
    });
    expect(await cloud.listRoutes('my-k8s')).toEqual([route('node-x', '10.120.2.0/24', { name: 'r1' })]);
    (cloud as { routeMap: unknown }).routeMap = undefined;
    await cloud.createRoute('my-k8s', 'h', route('node-1', '10.120.0.0/24'));
    expect(cloud.routeMap.size).toBe(1);
  });

  it('a duplicate create sets err permanently, so later listRoutes fail (upstream duplicate pod cidr)', async () => {
    const cloud = new FakeCloud();
    await cloud.createRoute('my-k8s', 'h', route('node-4', '10.120.1.0/24'));
    const dup = cloud.createRoute('my-k8s', 'h', route('node-4', '10.120.1.0/24'));
    await expect(dup).rejects.toThrow(/^route "my-k8s-node-4-10.120.1.0\/24" already exists$/);
    expect(cloud.err?.message).toBe('route "my-k8s-node-4-10.120.1.0/24" already exists');
    await expect(cloud.listRoutes('my-k8s')).rejects.toBe(cloud.err);
    await cloud.createRoute('my-k8s', 'h', route('node-5', '10.120.5.0/24'));
    expect(cloud.routeMap.size).toBe(2);
  });

  it('deleteRoute matches cluster, target node and CIDR (not the name); a miss sets err permanently', async () => {
    const cloud = new FakeCloud();
    await cloud.createRoute('my-k8s', 'h', route('node-1', '10.120.0.0/24'));
    await cloud.createRoute('my-k8s', 'h', route('node-2', '10.120.1.0/24'));
    await cloud.deleteRoute('my-k8s', route('node-1', '10.120.0.0/24', { name: 'whatever' }));
    expect([...cloud.routeMap.keys()]).toEqual(['my-k8s-node-2-10.120.1.0/24']);
    await expect(cloud.deleteRoute('other', route('node-2', '10.120.1.0/24'))).rejects.toThrow(
      /^no route found for node:node-2 with DestinationCIDR== 10.120.1.0\/24$/,
    );
    expect(cloud.err?.message).toMatch(/^no route found/);
    expect(cloud.routeMap.size).toBe(1);
    expect(cloud.calls).toEqual(['create-route', 'create-route', 'delete-route', 'delete-route']);
  });
});
