/**
 * The fake Cattle API itself, through the example's client: basic authentication, filters, links, actions that
 * are offered only after a delay, public endpoints after activation, injected outages.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeCattle, type FakeCattle } from '../src/fake-cattle/index.js';
import { CattleApiError, CattleClient, type Host, type LoadBalancerService } from '../src/index.js';
import { until } from './helpers.js';

let api: FakeCattle;
let client: CattleClient;
beforeEach(async () => {
  api = await startFakeCattle({ actionDelayMs: 30, endpointDelayMs: 30, publicAddresses: ['198.51.100.1'] });
  client = new CattleClient({ url: api.url, accessKey: api.accessKey, secretKey: api.secretKey });
});
afterEach(() => api.close());

describe('fake Cattle API', () => {
  it('listens on loopback and refuses a wrong key pair with 401', async () => {
    expect(new URL(api.url).hostname).toBe('127.0.0.1');
    const wrong = new CattleClient({ url: api.url, accessKey: api.accessKey, secretKey: 'nope' });
    const err = await wrong.list('hosts', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CattleApiError);
    expect((err as CattleApiError).status).toBe(401);
    expect((err as Error).message).toBe('Cattle API GET /v2-beta/hosts: 401 Unauthorized: Unauthorized');
  });

  it('filters collections by field and by <field>_null, and follows links', async () => {
    const h1 = api.state.addHost({ hostname: 'a', uuid: 'ua', addresses: ['10.0.0.1', '10.0.0.2'] });
    api.state.addHost({ hostname: 'b', uuid: 'ub' });
    api.state.removeHost('b');
    expect((await client.list<Host>('hosts', {})).map((h) => h.hostname)).toEqual(['a', 'b']);
    expect((await client.list<Host>('hosts', { removed_null: '1' })).map((h) => h.hostname)).toEqual(['a']);
    expect(await client.list<Host>('hosts', { uuid: 'ub', removed_null: '1' })).toEqual([]);
    const [host] = await client.list<Host>('hosts', { uuid: 'ua' });
    expect(host!.id).toBe(h1.id);
    expect(
      (await client.link(host!, 'ipAddresses')).map((ip) => (ip as unknown as { address: string }).address),
    ).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(await client.byId('hosts', 'nope')).toBeUndefined();
  });

  it('offers no action while a service registers', async () => {
    const slow = await startFakeCattle({ actionDelayMs: 60_000 });
    try {
      const c = new CattleClient({ url: slow.url, accessKey: slow.accessKey, secretKey: slow.secretKey });
      const lb = await c.create<LoadBalancerService>('loadbalancerservices', { name: 'lb-x' });
      expect([lb.state, lb.actions]).toEqual(['registering', {}]);
      const forced = { ...lb, actions: { activate: `${lb.links!.self}?action=activate` } };
      await expect(c.action(forced, 'activate')).rejects.toThrow(/422 InvalidAction/);
    } finally {
      await slow.close();
    }
  });

  it('offers activate after registration, and public endpoints after activation', async () => {
    let lb = await client.create<LoadBalancerService>('loadbalancerservices', {
      name: 'lb-x',
      launchConfig: { ports: ['80:80/tcp', '443:443/tcp'] },
    });
    await until(() => api.state.get(lb.id)!.state === 'inactive', 'registration');
    lb = (await client.byId<LoadBalancerService>('loadbalancerservices', lb.id))!;
    expect(Object.keys(lb.actions!).sort()).toEqual(['activate', 'setservicelinks']);
    expect(lb.publicEndpoints).toBeUndefined();
    await client.action(lb, 'activate');
    await until(() => api.state.get(lb.id)!.state === 'active', 'activation');
    await until(() => (api.state.get(lb.id)!.publicEndpoints as unknown[] | undefined)?.length === 2, 'endpoints');
    lb = (await client.byId<LoadBalancerService>('loadbalancerservices', lb.id))!;
    expect(lb.publicEndpoints).toMatchObject([
      { ipAddress: '198.51.100.1', port: 80 },
      { ipAddress: '198.51.100.1', port: 443 },
    ]);
  });

  it('links consumed and consuming services; a removed one drops out of both', async () => {
    const ext = api.state.create('externalService', { name: 'e' });
    const lb = api.state.create('loadBalancerService', { name: 'l' });
    await until(() => lb.state === 'inactive' && ext.state === 'inactive', 'registration');
    const [rl] = await client.list<LoadBalancerService>('loadbalancerservices', { name: 'l' });
    await client.action(rl!, 'setservicelinks', { serviceLinks: [{ serviceId: ext.id }] });
    expect((await client.link(rl!, 'consumedservices')).map((s) => s.id)).toEqual([ext.id]);
    const [re] = await client.list('externalservices', { name: 'e' });
    expect((await client.link(re!, 'consumedbyservices')).map((s) => s.id)).toEqual([lb.id]);
    expect((await client.list('services', {})).map((s) => s.id).sort()).toEqual([ext.id, lb.id].sort());
    await client.remove(re!);
    expect(await client.link(rl!, 'consumedservices')).toEqual([]);
    await client.remove(re!); // already removed: 404, counted as removed
  });

  it('answers every request with the injected status until healed', async () => {
    api.failWith(503);
    await expect(client.list('hosts', {})).rejects.toMatchObject({ status: 503 });
    api.failWith(undefined);
    await expect(client.list('hosts', {})).resolves.toEqual([]);
  });
});
