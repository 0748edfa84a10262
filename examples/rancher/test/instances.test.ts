/**
 * Instances, the original's scenarios (rancher/rancher_test.go TestInstanceID, TestNodeAddresses) and its host
 * matching (getHostByName): a qualified Rancher host name matches a kubelet's short name and the other way round,
 * ignoring case; two matches are an error, none — or a host without addresses — is InstanceNotFoundError; while
 * the API fails, a host found earlier by name answers, until the cache entry is older than its TTL.
 */
import { InstanceNotFoundError, NotImplementedError } from '@ccm-kit/cloud-provider';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeCattle } from '../src/fake-cattle/index.js';
import { HostDirectory, hostNameMatches, hostUUIDOf, CattleClient } from '../src/index.js';
import { RecordingLogger } from '@ccm-kit/testing';
import { cloudOn, startFast } from './helpers.js';

let api: FakeCattle;
beforeEach(async () => (api = await startFast()));
afterEach(() => api.close());

describe('hostNameMatches', () => {
  it.each([
    ['node-1', 'node-1', true],
    ['NODE-1', 'node-1', true],
    ['node-1.example.com', 'node-1', true],
    ['node-1', 'node-1.example.com', true],
    ['Node-1.Example.com', 'node-1.example.com', true],
    ['node-1.example.com', 'node-1.other.org', false],
    ['node-10', 'node-1', false],
    ['node-1.example.com', 'node-2', false],
  ])('Rancher %s vs Node %s: %s', (rancher, nodeName, expected) => {
    expect(hostNameMatches(rancher, nodeName)).toBe(expected);
  });
});

describe('hostUUIDOf', () => {
  it('reads rancher://<uuid> and names any other providerID in its error', () => {
    expect(hostUUIDOf('rancher://abcd')).toBe('abcd');
    expect(() => hostUUIDOf('aws:///i-1')).toThrow(/"aws:\/\/\/i-1" is not a Rancher host \(rancher:\/\/<host uuid>\)/);
    expect(() => hostUUIDOf('rancher://')).toThrow(/is not a Rancher host/);
  });
});

describe('Instances', () => {
  it('instanceID is the host UUID (TestInstanceID)', async () => {
    api.state.addHost({ hostname: 'test1', uuid: 'abcd', addresses: ['127.0.0.1'] });
    expect(await cloudOn(api).instances.instanceID('test1')).toBe('abcd');
  });

  it('addresses are each IP as ExternalIP, then the host name as Hostname (TestNodeAddresses)', async () => {
    api.state.addHost({ hostname: 'test2', uuid: 'u2', addresses: ['192.168.1.1', '10.0.0.2'] });
    const { instances } = cloudOn(api);
    const expected = [
      { type: 'ExternalIP', address: '192.168.1.1' },
      { type: 'ExternalIP', address: '10.0.0.2' },
      { type: 'Hostname', address: 'test2' },
    ];
    expect(await instances.nodeAddresses('test2')).toEqual(expected);
    expect(await instances.nodeAddressesByProviderID('rancher://u2')).toEqual(expected);
  });

  it('finds a qualified host by the short Node name, and the reverse', async () => {
    api.state.addHost({ hostname: 'worker-1.rancher.example', uuid: 'w1', addresses: ['10.0.0.1'] });
    api.state.addHost({ hostname: 'worker-2', uuid: 'w2', addresses: ['10.0.0.2'] });
    const { instances } = cloudOn(api);
    expect(await instances.instanceID('WORKER-1')).toBe('w1');
    expect(await instances.instanceID('worker-2.cluster.local')).toBe('w2');
  });

  it('more than one matching host is an error, not "not found"', async () => {
    api.state.addHost({ hostname: 'dup.a.example', addresses: ['10.0.0.1'] });
    api.state.addHost({ hostname: 'dup.b.example', addresses: ['10.0.0.2'] });
    const err = await cloudOn(api)
      .instances.instanceID('dup')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(InstanceNotFoundError);
    expect((err as Error).message).toBe('multiple instances found for name: dup');
  });

  it('no host, or a host without addresses, is InstanceNotFoundError; exists-by-providerID is then false', async () => {
    const bare = api.state.addHost({ hostname: 'bare', uuid: 'bare-uuid' });
    const { instances } = cloudOn(api);
    await expect(instances.instanceID('ghost')).rejects.toBeInstanceOf(InstanceNotFoundError);
    await expect(instances.nodeAddresses('bare')).rejects.toBeInstanceOf(InstanceNotFoundError);
    expect(await instances.instanceExistsByProviderID(`rancher://${String(bare.uuid)}`)).toBe(false);
    expect(await instances.instanceExistsByProviderID('rancher://never')).toBe(false);
  });

  it('instance type is "rancher" by name and by providerID; shutdown and SSH keys are not implemented', async () => {
    api.state.addHost({ hostname: 'n1', uuid: 'u1', addresses: ['10.0.0.1'] });
    const { instances } = cloudOn(api);
    expect(await instances.instanceType('n1')).toBe('rancher');
    expect(await instances.instanceTypeByProviderID('rancher://u1')).toBe('rancher');
    await expect(instances.instanceTypeByProviderID('rancher://nope')).rejects.toBeInstanceOf(InstanceNotFoundError);
    await expect(instances.instanceShutdownByProviderID()).rejects.toBeInstanceOf(NotImplementedError);
    await expect(instances.addSSHKeyToAllInstances()).rejects.toBeInstanceOf(NotImplementedError);
    expect(await instances.currentNodeName('n1')).toBe('n1');
  });

  it('an API failure rejects exists-by-providerID (never false)', async () => {
    api.state.addHost({ hostname: 'n1', uuid: 'u1', addresses: ['10.0.0.1'] });
    const { instances } = cloudOn(api);
    api.failWith(503);
    await expect(instances.instanceExistsByProviderID('rancher://u1')).rejects.toThrow(/503/);
  });
});

describe('the host cache', () => {
  it('answers by name only while the API fails, until its TTL; "not found" evicts it', async () => {
    api.state.addHost({ hostname: 'n1', uuid: 'u1', addresses: ['10.0.0.1'] });
    let now = 1_000;
    const log = new RecordingLogger();
    const hosts = new HostDirectory(
      new CattleClient({ url: api.url, accessKey: api.accessKey, secretKey: api.secretKey }),
      log,
      { cacheTtlMs: 60_000, now: () => now },
    );
    await expect(hosts.byName('n1')).resolves.toMatchObject({ host: { uuid: 'u1' } });

    api.failWith(500);
    await expect(hosts.byName('n1')).resolves.toMatchObject({ host: { uuid: 'u1' } });
    expect(log.records.some((r) => r.msg === 'Cattle API failed; answering from the host cache')).toBe(true);
    await expect(hosts.byName('other')).rejects.toThrow(/500/); // nothing cached for it
    await expect(hosts.byProviderID('rancher://u1')).rejects.toThrow(/500/); // never from the cache
    now += 60_001;
    await expect(hosts.byName('n1')).rejects.toThrow(/500/); // expired

    api.failWith(undefined);
    now = 1_000;
    await hosts.byName('n1');
    api.state.removeHost('n1');
    await expect(hosts.byName('n1')).rejects.toBeInstanceOf(InstanceNotFoundError);
    api.failWith(500);
    await expect(hosts.byName('n1')).rejects.toThrow(/500/); // evicted by the "not found"
  });

  it('an aborted call rejects instead of answering from the cache', async () => {
    api.state.addHost({ hostname: 'n1', uuid: 'u1', addresses: ['10.0.0.1'] });
    const { instances } = cloudOn(api);
    await instances.instanceID('n1');
    await expect(instances.instanceID('n1', AbortSignal.abort(new Error('stop')))).rejects.toThrow('stop');
  });
});
