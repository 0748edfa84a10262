/**
 * LoadBalancer against the fake Cattle API: the original's scenarios (rancher/rancher_test.go
 * TestGetLoadBalancer, TestEnsureLoadBalancerDeleted, TestUpdateLoadBalancer) and the whole ensure — where the
 * original blocked on Rancher, a RetryError — port changes, Node set changes, shared external services, and the
 * errors it keeps.
 */
import { findError, InstanceNotFoundError, RetryError } from '@ccm-kit/cloud-provider';
import { loadBalancerService } from '@ccm-kit/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeCattle, Stored } from '../src/fake-cattle/index.js';
import { RANCHER_LB_CAPABILITIES } from '../src/index.js';
import { cloudOn, ensureUntilDone, node, startFast } from './helpers.js';

let api: FakeCattle;
beforeEach(async () => {
  api = await startFast();
  api.state.addHost({ hostname: 'node-a', uuid: 'ua', addresses: ['10.0.0.1', '10.0.1.1'] });
  api.state.addHost({ hostname: 'node-b.example.com', uuid: 'ub', addresses: ['10.0.0.2'] });
});
afterEach(() => api.close());

const WEB = loadBalancerService('web', {
  uid: 'test-lb-1',
  ports: [
    { name: 'http', port: 80, nodePort: 30080 },
    { name: 'https', port: 443, nodePort: 30443 },
  ],
});
const NODES = [node('node-a'), node('node-b.example.com')];

/** A service already active in Rancher, as the original's tests seed them. */
function activeService(type: string, fields: Record<string, unknown>, links: Stored[] = []): Stored {
  const s = api.state.create(type, fields);
  s.state = 'active';
  if (links.length) api.state.act(s, 'setservicelinks', { serviceLinks: links.map((l) => ({ serviceId: l.id })) });
  return s;
}

const balancers = () => api.state.list('loadBalancerService');
const externals = () => api.state.list('externalService');
const linksOf = (lb: Stored) => api.state.follow(lb, 'consumedservices').map((s) => s.name);

describe("the original's scenarios", () => {
  it('getLoadBalancer reports the public endpoints of the balancer named lb-<name> (TestGetLoadBalancer)', async () => {
    activeService('loadBalancerService', {
      name: 'lb-atestlb1',
      publicEndpoints: [{ ipAddress: '172.178.1.1', port: 8080 }],
    });
    const { lb } = cloudOn(api);
    expect(await lb.getLoadBalancer('kubernetes', WEB)).toEqual({ ingress: [{ ip: '172.178.1.1' }] });
    expect(await lb.getLoadBalancer('kubernetes', loadBalancerService('other'))).toBeUndefined();
  });

  it('delete removes the balancer and the services no other balancer consumes (TestEnsureLoadBalancerDeleted)', async () => {
    const stack = api.state.create('stack', { name: 'kubernetes-loadbalancers' });
    const s1 = activeService('externalService', { name: 's1', stackId: stack.id });
    const s2 = activeService('externalService', { name: 's2', stackId: stack.id });
    const lb1 = activeService('loadBalancerService', { name: 'lb-atestlb1', stackId: stack.id }, [s1, s2]);
    const lb2 = activeService('loadBalancerService', { name: 'lb-other', stackId: stack.id }, [s2]);
    const { lb } = cloudOn(api);
    await lb.ensureLoadBalancerDeleted('kubernetes', WEB);
    expect(balancers().map((b) => b.id)).toEqual([lb2.id]);
    expect(externals().map((s) => s.name)).toEqual(['s2']);
    expect(api.state.get(lb1.id)?.state).toBe('removed');
    await lb.ensureLoadBalancerDeleted('kubernetes', WEB); // already gone: still fine
  });

  it('update replaces links and port rules (TestUpdateLoadBalancer); the unlinked service goes with the balancer', async () => {
    const stack = api.state.create('stack', { name: 'kubernetes-loadbalancers' });
    const s1 = activeService('externalService', { name: 's1', stackId: stack.id });
    const host1 = activeService('externalService', { name: 'host1', stackId: stack.id });
    const lb1 = activeService('loadBalancerService', { name: 'lb-atestlb1', stackId: stack.id }, [s1]);
    const { lb } = cloudOn(api);
    await lb.updateLoadBalancer('kubernetes', WEB, [node('host1')]);
    expect(linksOf(lb1)).toEqual(['host1']);
    expect(api.state.get(lb1.id)?.lbConfig).toEqual({
      portRules: [
        { sourcePort: 80, targetPort: 30080, serviceId: host1.id, protocol: 'tcp' },
        { sourcePort: 443, targetPort: 30443, serviceId: host1.id, protocol: 'tcp' },
      ],
    });
    // The original removed s1 here; it stays for a Node that comes back, until the balancer is deleted.
    expect(externals().map((s) => s.name)).toEqual(['s1', 'host1']);
    await lb.ensureLoadBalancerDeleted('kubernetes', WEB);
    expect(externals()).toEqual([]);
  });
});

describe('ensure', () => {
  it('builds stack, balancer and one external service per Node, waiting through RetryErrors, then reports the endpoint', async () => {
    const { lb } = cloudOn(api);
    const { status, retries } = await ensureUntilDone(() => lb.ensureLoadBalancer('kubernetes', WEB, NODES));
    expect(status).toEqual({ ingress: [{ ip: '203.0.113.10' }] });
    // Rancher's steps each came back as a RetryError instead of a blocking wait.
    expect(retries.length).toBeGreaterThan(0);
    expect(retries.join('\n')).toMatch(
      /does not offer (activate|setservicelinks) yet|not active yet|no public endpoint yet/,
    );

    const [stack] = api.state.list('stack');
    expect(stack).toMatchObject({ name: 'kubernetes-loadbalancers', externalId: 'kubernetes-loadbalancers://' });
    const [b] = balancers();
    expect(b).toMatchObject({
      name: 'lb-atestlb1',
      stackId: stack!.id,
      state: 'active',
      launchConfig: { ports: ['80:80/tcp', '443:443/tcp'], imageUuid: 'docker:rancher/lb-service-haproxy:v0.7.9' },
    });
    const ext = externals();
    expect(ext.map((s) => [s.name, s.externalIpAddresses, s.state, s.stackId])).toEqual([
      ['node-a', ['10.0.0.1'], 'active', stack!.id],
      ['node-b-example-com', ['10.0.0.2'], 'active', stack!.id],
    ]);
    expect(linksOf(b!)).toEqual(['node-a', 'node-b-example-com']);
    expect((b!.lbConfig as { portRules: unknown[] }).portRules).toEqual(
      ext.flatMap((s) => [
        { sourcePort: 80, targetPort: 30080, serviceId: s.id, protocol: 'tcp' },
        { sourcePort: 443, targetPort: 30443, serviceId: s.id, protocol: 'tcp' },
      ]),
    );
    expect(await lb.getLoadBalancer('kubernetes', WEB)).toEqual(status);

    // Again: the same answer at once, nothing new.
    const again = await ensureUntilDone(() => lb.ensureLoadBalancer('kubernetes', WEB, NODES));
    expect(again).toEqual({ status, retries: [] });
    expect([balancers().length, externals().length, api.state.list('stack').length]).toEqual([1, 2, 1]);
  });

  it('does not wait for Rancher: the first attempt ends in a RetryError of the configured delay', async () => {
    const { lb } = cloudOn(api, { retryAfterMs: 2_000 });
    const err = await lb.ensureLoadBalancer('kubernetes', WEB, NODES).catch((e: unknown) => e);
    expect(findError(err, RetryError)?.retryAfterMs).toBe(2_000);
    expect(balancers()).toHaveLength(1); // made, and left for the next attempt to find
  });

  it('recreates the balancer when its ports change', async () => {
    const { lb } = cloudOn(api);
    await ensureUntilDone(() => lb.ensureLoadBalancer('kubernetes', WEB, NODES));
    const [old] = balancers();
    const changed = loadBalancerService('web', { uid: 'test-lb-1', ports: [{ port: 8080, nodePort: 31080 }] });
    await ensureUntilDone(() => lb.ensureLoadBalancer('kubernetes', changed, NODES));
    const [now] = balancers();
    expect(now!.id).not.toBe(old!.id);
    expect(api.state.get(old!.id)?.state).toBe('removed');
    expect(now!.launchConfig).toMatchObject({ ports: ['8080:8080/tcp'] });
    expect((now!.lbConfig as { portRules: { targetPort: number }[] }).portRules.map((r) => r.targetPort)).toEqual([
      31080, 31080,
    ]);
  });

  it('a Node set change replaces links and port rules; a Node that comes back is served at once', async () => {
    const { lb } = cloudOn(api);
    const other = loadBalancerService('other', { uid: 'other-uid' });
    await ensureUntilDone(() => lb.ensureLoadBalancer('kubernetes', WEB, NODES));
    await ensureUntilDone(() => lb.ensureLoadBalancer('kubernetes', other, [node('node-b.example.com')]));
    expect(externals()).toHaveLength(2); // node-b's service is shared

    await lb.updateLoadBalancer('kubernetes', WEB, [node('node-a')]);
    const web = balancers().find((b) => b.name === 'lb-atestlb1')!;
    const [a, b] = externals();
    expect(linksOf(web)).toEqual(['node-a']);
    expect((web.lbConfig as { portRules: { serviceId: string }[] }).portRules.map((r) => r.serviceId)).toEqual([
      a!.id,
      a!.id,
    ]);
    await lb.updateLoadBalancer('kubernetes', other, [node('node-a')]);
    expect(externals().map((s) => s.name)).toEqual(['node-a', 'node-b-example-com']); // b kept, unused

    await lb.updateLoadBalancer('kubernetes', WEB, NODES); // b is back: its service is active, no RetryError
    expect(linksOf(web)).toEqual(['node-a', 'node-b-example-com']);
    expect(externals().map((s) => s.id)).toEqual([a!.id, b!.id]);

    await lb.ensureLoadBalancerDeleted('kubernetes', other);
    expect(externals()).toHaveLength(2); // both still used by web
    await lb.ensureLoadBalancerDeleted('kubernetes', WEB);
    expect([balancers().length, externals().length]).toEqual([0, 0]);
  });

  it('a new Node in an update is a RetryError until Rancher can activate its service', async () => {
    const { lb } = cloudOn(api);
    await ensureUntilDone(() => lb.ensureLoadBalancer('kubernetes', WEB, [node('node-a')]));
    await expect(lb.updateLoadBalancer('kubernetes', WEB, NODES)).rejects.toBeInstanceOf(RetryError);
    await ensureUntilDone(() => lb.ensureLoadBalancer('kubernetes', WEB, NODES));
    expect(linksOf(balancers()[0]!)).toEqual(['node-a', 'node-b-example-com']);
  });

  it('two concurrent ensures for one Service make one balancer', async () => {
    const { lb } = cloudOn(api);
    const [one, two] = await Promise.all([
      ensureUntilDone(() => lb.ensureLoadBalancer('kubernetes', WEB, NODES)),
      ensureUntilDone(() => lb.ensureLoadBalancer('kubernetes', WEB, NODES)),
    ]);
    expect(one.status).toEqual(two.status);
    expect(balancers()).toHaveLength(1);
    expect(api.state.list('stack')).toHaveLength(1);
  });
});

describe('what the original refused, and the errors it keeps', () => {
  it('declares loadBalancerIP and session affinity unsupported, and serves such a Service without an error', async () => {
    expect(RANCHER_LB_CAPABILITIES).toMatchObject({ loadBalancerIP: false, sessionAffinityClientIP: false });
    const { lb } = cloudOn(api);
    const asking = loadBalancerService('web', {
      uid: 'test-lb-1',
      spec: { loadBalancerIP: '198.51.100.7', sessionAffinity: 'ClientIP' },
    });
    const { status } = await ensureUntilDone(() => lb.ensureLoadBalancer('kubernetes', asking, NODES));
    expect(status.ingress?.[0]?.ip).toBe('203.0.113.10');
  });

  it('serves only TCP ports with a node port, and says which it skipped', async () => {
    const { lb, logger } = cloudOn(api);
    const mixed = loadBalancerService('dns', {
      ports: [
        { name: 'tcp', port: 53, protocol: 'TCP', nodePort: 30053 },
        { name: 'udp', port: 53, protocol: 'UDP', nodePort: 30054 },
      ],
    });
    await ensureUntilDone(() => lb.ensureLoadBalancer('kubernetes', mixed, NODES));
    expect(balancers()[0]!.launchConfig).toMatchObject({ ports: ['53:53/tcp'] });
    expect(logger.records).toContainEqual(
      expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ ports: ['53/UDP'] }) }),
    );
  });

  it('fails without the lb.instance.image setting, creating nothing', async () => {
    api.state.setSetting('lb.instance.image', '');
    await expect(cloudOn(api).lb.ensureLoadBalancer('kubernetes', WEB, NODES)).rejects.toThrow(
      'Failed to fetch lb.instance.image setting',
    );
    expect(balancers()).toHaveLength(0);
  });

  it('fails for a Node without a Rancher host, naming it', async () => {
    const { lb } = cloudOn(api);
    const err = await ensureUntilDone(() => lb.ensureLoadBalancer('kubernetes', WEB, [node('ghost')])).catch(
      (e: unknown) => e as Error,
    );
    expect((err as Error).message).toMatch(/Couldn't create external service ghost for LB lb-atestlb1/);
    expect(findError(err, InstanceNotFoundError)).toBeDefined();
  });

  it('two balancers of one name are an error; update without a balancer is an error', async () => {
    activeService('loadBalancerService', { name: 'lb-atestlb1' });
    activeService('loadBalancerService', { name: 'lb-atestlb1' });
    const { lb } = cloudOn(api);
    await expect(lb.getLoadBalancer('kubernetes', WEB)).rejects.toThrow('Multiple LBs found for name: lb-atestlb1');
    await expect(lb.updateLoadBalancer('kubernetes', loadBalancerService('x'), NODES)).rejects.toThrow(
      "Couldn't find LB with name lb-auiddefaultx",
    );
  });

  it('an API failure rejects getLoadBalancer (never "gone")', async () => {
    const { lb } = cloudOn(api);
    await ensureUntilDone(() => lb.ensureLoadBalancer('kubernetes', WEB, NODES));
    api.failWith(503);
    await expect(lb.getLoadBalancer('kubernetes', WEB)).rejects.toThrow(/503/);
  });
});
