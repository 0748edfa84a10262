import { findError, InvalidAnnotationError, RetryError } from '@ccm-kit/cloud-provider';
import type { V1Service } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MockCloudApiServer } from '../src/api-server/index.js';
import {
  ANNOTATION_LOAD_BALANCER_ID,
  ANNOTATION_NODE_SELECTOR,
  ANNOTATION_PROXY_PROTOCOL,
  LABEL_CLUSTER_ID,
  LABEL_SERVICE_NAME,
  LABEL_SERVICE_NAMESPACE,
  LABEL_SERVICE_UID,
  type MockCloudConfig,
  MockCloudProvider,
} from '../src/index.js';
import { RecordingLogger } from '@ccm-kit/testing';
import { FakeServiceClient, node, service, startApi, testConfig } from './helpers.js';

let api: MockCloudApiServer;
let patches: FakeServiceClient;
const UID = '11111111-2222-3333-4444-555555555555';
const NAME = 'a11111111222233334444555555555555'.slice(0, 32);

function provider(config: Partial<MockCloudConfig> = {}) {
  return new MockCloudProvider(
    { ...testConfig(api), ...config },
    { serviceClient: patches, logger: new RecordingLogger() },
  );
}

function lbFacet(config: Partial<MockCloudConfig> = {}) {
  return provider(config).loadBalancer();
}

/** The Service as the informer would show it after the provider's annotation patch. */
function withRecordedID(svc: V1Service, id: string): V1Service {
  return {
    ...svc,
    metadata: {
      ...svc.metadata,
      annotations: { ...svc.metadata!.annotations, [ANNOTATION_LOAD_BALANCER_ID]: id },
    },
  };
}

async function expectRetry(p: Promise<unknown>, ms: number): Promise<RetryError> {
  const err = await p.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RetryError);
  expect((err as RetryError).retryAfterMs).toBe(ms);
  return err as RetryError;
}

beforeEach(async () => {
  api = await startApi({ provisioningDelayMs: 60_000 });
  patches = new FakeServiceClient();
});
afterEach(async () => {
  await api.close();
});

describe('LoadBalancer: create, provisioning and status', () => {
  it('creates an owned load balancer, records its ID, asks to retry while provisioning, then reports the IP', async () => {
    const a = api.state.addServer({ name: 'a' });
    const b = api.state.addServer({ name: 'b' });
    const lbs = lbFacet();
    const svc = service();
    const nodes = [node('a', `mockcloud://${a.id}`), node('b', `mockcloud://${b.id}`)];

    const err = await expectRetry(lbs.ensureLoadBalancer('kubernetes', svc, nodes), 5_000);
    expect(err.message).toBe('mockcloud: load balancer lb-000001 for service default/web is still provisioning');
    const [lb] = api.state.listLoadBalancers();
    expect(lb).toMatchObject({
      id: 'lb-000001',
      name: NAME,
      status: 'provisioning',
      labels: {
        [LABEL_SERVICE_UID]: UID,
        [LABEL_CLUSTER_ID]: 'test-cluster',
        [LABEL_SERVICE_NAMESPACE]: 'default',
        [LABEL_SERVICE_NAME]: 'web',
      },
      listeners: [{ protocol: 'tcp', port: 80, target_port: 30080, proxy_protocol: false }],
      targets: [{ server_id: a.id }, { server_id: b.id }],
      health_check: { protocol: 'http', port: 10256, path: '/healthz', interval_seconds: 5 },
    });
    expect(patches.patches).toEqual([
      {
        namespace: 'default',
        name: 'web',
        patch: { metadata: { annotations: { [ANNOTATION_LOAD_BALANCER_ID]: 'lb-000001' } } },
      },
    ]);
    expect(await lbs.getLoadBalancer('kubernetes', svc)).toEqual({});

    // Still provisioning on the next sync: same load balancer, no second create.
    const recorded = withRecordedID(svc, 'lb-000001');
    await expectRetry(lbs.ensureLoadBalancer('kubernetes', recorded, nodes), 5_000);

    api.state.activateLoadBalancer('lb-000001');
    const ip = api.state.getLoadBalancer('lb-000001')!.public_ip!;
    expect(await lbs.ensureLoadBalancer('kubernetes', recorded, nodes)).toEqual({ ingress: [{ ip }] });
    expect(await lbs.getLoadBalancer('kubernetes', recorded)).toEqual({ ingress: [{ ip }] });
    expect(api.state.listLoadBalancers()).toHaveLength(1);
    expect(patches.patches).toHaveLength(1);
    expect(api.requests().filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('uses the configured provisioning retry delay', async () => {
    await expectRetry(
      lbFacet({
        loadBalancer: { provisioningRetryMs: 1_234, healthCheckIntervalSeconds: 5, groupBy: 'none' },
      }).ensureLoadBalancer('kubernetes', service(), []),
      1_234,
    );
  });

  it('reports undefined for a Service without a load balancer', async () => {
    expect(await lbFacet().getLoadBalancer('kubernetes', service())).toBeUndefined();
  });

  it('declares no load-balancer groups by default, and one per namespace with groupBy: namespace', () => {
    expect(lbFacet().loadBalancerGroup).toBeUndefined();
    const grouped = lbFacet({
      loadBalancer: { provisioningRetryMs: 5_000, healthCheckIntervalSeconds: 5, groupBy: 'namespace' },
    });
    expect(grouped.loadBalancerGroup?.('kubernetes', service())).toBe(service().metadata!.namespace);
  });

  it('names load balancers like upstream', () => {
    expect(lbFacet().getLoadBalancerName('kubernetes', service())).toBe(NAME);
  });

  it('updates listeners and health check when the Service changes', async () => {
    api.state.provisioningDelayMs = 0;
    const lbs = lbFacet();
    await lbs.ensureLoadBalancer('kubernetes', service(), []);
    const changed = service({
      annotations: { [ANNOTATION_LOAD_BALANCER_ID]: 'lb-000001', [ANNOTATION_PROXY_PROTOCOL]: 'true' },
      ports: [
        { name: 'https', protocol: 'TCP', port: 443, nodePort: 30443 },
        { name: 'dns', protocol: 'UDP', port: 53, nodePort: 30053 },
      ],
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 32000,
    });
    const status = await lbs.ensureLoadBalancer('kubernetes', changed, []);
    expect(status.ingress?.[0]?.ipMode).toBe('Proxy');
    expect(api.state.getLoadBalancer('lb-000001')).toMatchObject({
      listeners: [
        { protocol: 'tcp', port: 443, target_port: 30443, proxy_protocol: true },
        { protocol: 'udp', port: 53, target_port: 30053, proxy_protocol: false },
      ],
      health_check: { protocol: 'http', port: 32000, path: '/healthz', interval_seconds: 5 },
    });
    // An unchanged Service causes no update.
    const before = api.requests().filter((r) => r.method === 'PATCH').length;
    await lbs.ensureLoadBalancer('kubernetes', changed, []);
    expect(api.requests().filter((r) => r.method === 'PATCH')).toHaveLength(before);
  });
});

describe('LoadBalancer: targets', () => {
  it('targets Nodes by providerID and skips Nodes without one, foreign ones and unknown servers', async () => {
    const a = api.state.addServer({ name: 'a' });
    const lbs = lbFacet();
    const nodes = [
      node('a', `mockcloud://${a.id}`),
      node('new'),
      node('hybrid', 'aws:///eu-west-1a/i-0abc'),
      node('gone', 'mockcloud://srv-999999'),
    ];
    await expectRetry(lbs.ensureLoadBalancer('kubernetes', service(), nodes), 5_000);
    expect(api.state.getLoadBalancer('lb-000001')!.targets).toEqual([{ server_id: a.id }]);
  });

  it('finds a server created after the snapshot before skipping it', async () => {
    const p = provider({ instancesCacheMaxAgeMs: 600_000 });
    await p.instancesV2().instanceExists(node('warm-up')); // snapshot without the server
    const late = api.state.addServer({ name: 'late' });
    await expectRetry(
      p.loadBalancer().ensureLoadBalancer('kubernetes', service(), [node('late', `mockcloud://${late.id}`)]),
      5_000,
    );
    expect(api.state.getLoadBalancer('lb-000001')!.targets).toEqual([{ server_id: late.id }]);
  });

  it('reads the server list again when a cached server was deleted, instead of failing every Service (regression: chaos settle time)', async () => {
    const p = provider({ instancesCacheMaxAgeMs: 600_000 });
    const a = api.state.addServer({ name: 'a' });
    const b = api.state.addServer({ name: 'b' });
    await p.instancesV2().instanceExists(node('warm-up')); // a snapshot with both servers
    api.state.removeServer(b.id); // the machine is deleted; its Node is still listed
    const nodes = [node('a', `mockcloud://${a.id}`), node('b', `mockcloud://${b.id}`)];
    await expectRetry(p.loadBalancer().ensureLoadBalancer('kubernetes', service(), nodes), 5_000);
    expect(api.state.getLoadBalancer('lb-000001')!.targets).toEqual([{ server_id: a.id }]);

    const c = api.state.addServer({ name: 'c' });
    const later = provider({ instancesCacheMaxAgeMs: 600_000 });
    await later.instancesV2().instanceExists(node('warm-up')); // a snapshot with a and c
    api.state.removeServer(c.id);
    const recorded = withRecordedID(service(), 'lb-000001');
    await later
      .loadBalancer()
      .updateLoadBalancer('kubernetes', recorded, [nodes[0]!, node('c', `mockcloud://${c.id}`)]);
    expect(api.state.getLoadBalancer('lb-000001')!.targets).toEqual([{ server_id: a.id }]);
  });

  it('honours the node-selector annotation', async () => {
    const a = api.state.addServer({ name: 'a' });
    const b = api.state.addServer({ name: 'b' });
    const svc = service({ annotations: { [ANNOTATION_NODE_SELECTOR]: 'pool=edge' } });
    await expectRetry(
      lbFacet().ensureLoadBalancer('kubernetes', svc, [
        node('a', `mockcloud://${a.id}`, { pool: 'edge' }),
        node('b', `mockcloud://${b.id}`, { pool: 'core' }),
      ]),
      5_000,
    );
    expect(api.state.getLoadBalancer('lb-000001')!.targets).toEqual([{ server_id: a.id }]);
  });

  it('updateLoadBalancer changes only the targets, and fails for a Service without a load balancer', async () => {
    const a = api.state.addServer({ name: 'a' });
    const b = api.state.addServer({ name: 'b' });
    const lbs = lbFacet();
    await expectRetry(lbs.ensureLoadBalancer('kubernetes', service(), [node('a', `mockcloud://${a.id}`)]), 5_000);
    const recorded = withRecordedID(service(), 'lb-000001');
    await lbs.updateLoadBalancer('kubernetes', recorded, [node('b', `mockcloud://${b.id}`)]);
    expect(api.state.getLoadBalancer('lb-000001')).toMatchObject({
      targets: [{ server_id: b.id }],
      listeners: [{ port: 80 }],
    });
    const other = service({ uid: '99999999-2222-3333-4444-555555555555', name: 'other' });
    await expect(lbs.updateLoadBalancer('kubernetes', other, [])).rejects.toThrow(
      'mockcloud: service default/other has no load balancer yet',
    );
  });
});

describe('LoadBalancer: bad input', () => {
  it('rejects bad annotations and unsupported ports before any cloud call, naming each problem', async () => {
    const svc = service({
      annotations: { [ANNOTATION_PROXY_PROTOCOL]: 'yes', [ANNOTATION_NODE_SELECTOR]: 'pool in (a' },
      ports: [
        { name: 'sctp', protocol: 'SCTP', port: 9, nodePort: 30009 },
        { name: 'nonode', protocol: 'TCP', port: 8080 },
      ],
    });
    const err = (await lbFacet()
      .ensureLoadBalancer('kubernetes', svc, [])
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^mockcloud: service default\/web: /);
    expect(err.message).toContain(`annotation ${ANNOTATION_PROXY_PROTOCOL}: "yes" is not "true" or "false"`);
    expect(err.message).toContain(`annotation ${ANNOTATION_NODE_SELECTOR}: invalid label selector`);
    expect(err.message).toContain('port "sctp" uses protocol SCTP');
    expect(err.message).toContain('port "nonode" has no nodePort');
    expect(findError(err, InvalidAnnotationError)?.problems.map((p) => p.annotation)).toEqual([
      ANNOTATION_PROXY_PROTOCOL,
      ANNOTATION_NODE_SELECTOR,
    ]);
    expect(api.requests()).toHaveLength(0);
  });

  it('still deletes a Service whose annotations are invalid', async () => {
    api.state.provisioningDelayMs = 0;
    const lbs = lbFacet();
    await lbs.ensureLoadBalancer('kubernetes', service(), []);
    const broken = service({
      annotations: { [ANNOTATION_PROXY_PROTOCOL]: 'maybe', [ANNOTATION_NODE_SELECTOR]: '((' },
    });
    await lbs.ensureLoadBalancerDeleted('kubernetes', broken);
    expect(api.state.listLoadBalancers()).toEqual([]);
  });
});

describe('LoadBalancer: malformed and mistyped annotations (regressions)', () => {
  it('rejects the ID "." before any cloud call (it used to turn into the list endpoint)', async () => {
    const svc = service({ annotations: { [ANNOTATION_LOAD_BALANCER_ID]: '.' } });
    const err = await lbFacet()
      .ensureLoadBalancer('kubernetes', svc, [])
      .catch((e: unknown) => e);
    expect(findError(err, InvalidAnnotationError)?.problems[0]).toMatchObject({
      annotation: ANNOTATION_LOAD_BALANCER_ID,
      value: '.',
    });
    expect((err as Error).message).toContain(`annotation ${ANNOTATION_LOAD_BALANCER_ID}: "." is not a mockcloud ID`);
    expect(api.requests()).toHaveLength(0);
  });

  it.each(['.', '..', 'lb-1/../..', ''])(
    'deletes a Service whose ID annotation is %j: a malformed ID counts as absent',
    async (bad) => {
      api.state.provisioningDelayMs = 0;
      const lbs = lbFacet();
      await lbs.ensureLoadBalancer('kubernetes', service(), []);
      await lbs.ensureLoadBalancerDeleted(
        'kubernetes',
        service({ annotations: { [ANNOTATION_LOAD_BALANCER_ID]: bad } }),
      );
      expect(api.state.listLoadBalancers()).toEqual([]);
      expect(api.requests().some((r) => r.path.startsWith('/v1/load_balancers/.'))).toBe(false);
    },
  );

  it('reports a typo in an annotation name instead of ignoring it, naming the likely one', async () => {
    const svc = service({ annotations: { 'mockcloud.ccm-kit.io/load-balancer-idd': 'lb-000001' } });
    const err = await lbFacet()
      .ensureLoadBalancer('kubernetes', svc, [])
      .catch((e: unknown) => e);
    expect((err as Error).message).toContain(
      `annotation mockcloud.ccm-kit.io/load-balancer-idd is unknown (did you mean ${ANNOTATION_LOAD_BALANCER_ID}?)`,
    );
    expect(api.state.listLoadBalancers()).toEqual([]);
    expect(api.requests()).toHaveLength(0);
  });

  it('keeps the last good configuration when an annotation becomes invalid', async () => {
    api.state.provisioningDelayMs = 0;
    const lbs = lbFacet();
    const good = service({ annotations: { [ANNOTATION_PROXY_PROTOCOL]: 'true' } });
    await lbs.ensureLoadBalancer('kubernetes', good, []);
    const before = structuredClone(api.state.listLoadBalancers());
    const bad = service({ annotations: { [ANNOTATION_PROXY_PROTOCOL]: 'maybe' } });
    await expect(lbs.ensureLoadBalancer('kubernetes', bad, [])).rejects.toThrow(/proxy-protocol/);
    await expect(lbs.updateLoadBalancer('kubernetes', bad, [])).rejects.toThrow(/proxy-protocol/);
    expect(api.state.listLoadBalancers()).toEqual(before);
  });

  it('takes the health-check interval from its annotation, else from the config', async () => {
    api.state.provisioningDelayMs = 0;
    const lbs = lbFacet();
    await lbs.ensureLoadBalancer(
      'kubernetes',
      service({ annotations: { 'mockcloud.ccm-kit.io/health-check-interval': '1500ms' } }),
      [],
    );
    expect(api.state.listLoadBalancers()[0]!.health_check?.interval_seconds).toBe(2);
    await lbs.ensureLoadBalancer('kubernetes', service(), []);
    expect(api.state.listLoadBalancers()[0]!.health_check?.interval_seconds).toBe(5);
  });
});

describe('LoadBalancer: delete', () => {
  it('is idempotent: deleting twice, or after the load balancer vanished, succeeds', async () => {
    const lbs = lbFacet();
    await expectRetry(lbs.ensureLoadBalancer('kubernetes', service(), []), 5_000);
    const recorded = withRecordedID(service(), 'lb-000001');
    await lbs.ensureLoadBalancerDeleted('kubernetes', recorded);
    expect(api.state.listLoadBalancers()).toEqual([]);
    await lbs.ensureLoadBalancerDeleted('kubernetes', recorded);
    await lbs.ensureLoadBalancerDeleted('kubernetes', service());
  });

  it('treats a 404 on the DELETE itself as success', async () => {
    api.state.provisioningDelayMs = 0;
    const lbs = lbFacet();
    await lbs.ensureLoadBalancer('kubernetes', service(), []);
    // The load balancer disappears between the lookup and the DELETE.
    api.injectFault({ latencyMs: 100, method: 'DELETE', count: 1 });
    const deleting = lbs.ensureLoadBalancerDeleted('kubernetes', service());
    await new Promise((r) => setTimeout(r, 30));
    api.state.deleteLoadBalancer('lb-000001');
    await deleting;
    expect(api.requests().at(-1)).toMatchObject({ method: 'DELETE', status: 404 });
  });

  it('deletes only load balancers this Service owns', async () => {
    const mine = lbFacet();
    await expectRetry(mine.ensureLoadBalancer('kubernetes', service(), []), 5_000);
    const other = service({ uid: '99999999-2222-3333-4444-555555555555', name: 'other' });
    await expectRetry(mine.ensureLoadBalancer('kubernetes', other, []), 5_000);
    const foreignCluster = api.state.createLoadBalancer({
      name: 'foreign',
      labels: { [LABEL_SERVICE_UID]: UID, [LABEL_CLUSTER_ID]: 'another-cluster' },
    });
    const unowned = api.state.createLoadBalancer({ name: 'unowned' });
    // Even when the Service's annotation names them, foreign and unowned load balancers survive.
    await mine.ensureLoadBalancerDeleted('kubernetes', withRecordedID(service(), foreignCluster.id));
    await mine.ensureLoadBalancerDeleted('kubernetes', withRecordedID(service(), unowned.id));
    expect(api.state.listLoadBalancers().map((l) => l.name)).toEqual([
      'a99999999222233334444555555555555'.slice(0, 32),
      'foreign',
      'unowned',
    ]);
  });

  it('removes the recorded ID before deleting, so the Service gets a new load balancer when it is a LoadBalancer again (regression: chaos seed 20261124)', async () => {
    api.state.provisioningDelayMs = 0;
    const lbs = lbFacet();
    await lbs.ensureLoadBalancer('kubernetes', service(), []);
    const recorded = withRecordedID(service(), 'lb-000001');
    // Switched to ClusterIP: the service controller deletes the load balancer of the Service it has (annotated).
    await lbs.ensureLoadBalancerDeleted('kubernetes', recorded);
    expect(api.state.listLoadBalancers()).toEqual([]);
    // With the Service's UID: a Service re-created under the same name keeps its own annotation.
    expect(patches.patches.at(-1)!.patch).toEqual({
      metadata: { annotations: { [ANNOTATION_LOAD_BALANCER_ID]: null }, uid: UID },
    });
    // Switched back to LoadBalancer: the Service as the informer shows it after that patch gets a new one.
    const status = await lbs.ensureLoadBalancer('kubernetes', service(), []);
    expect(status.ingress).toHaveLength(1);
    expect(api.state.listLoadBalancers().map((l) => l.id)).toEqual(['lb-000002']);
  });

  it('deletes nothing when the recorded ID cannot be removed, and starts over on the retry', async () => {
    api.state.provisioningDelayMs = 0;
    const lbs = lbFacet();
    await lbs.ensureLoadBalancer('kubernetes', service(), []);
    const recorded = withRecordedID(service(), 'lb-000001');
    patches.failNext = 1;
    const err = await lbs.ensureLoadBalancerDeleted('kubernetes', recorded).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(
      /^mockcloud: could not remove the load-balancer ID \(lb-000001\) from service default\/web: the server is currently unable/,
    );
    expect(api.state.listLoadBalancers().map((l) => l.id)).toEqual(['lb-000001']);
    await lbs.ensureLoadBalancerDeleted('kubernetes', recorded);
    expect(api.state.listLoadBalancers()).toEqual([]);
  });

  it("removes the ID also when the controller's copy of the Service predates the provider's write-back", async () => {
    api.state.provisioningDelayMs = 0;
    const lbs = lbFacet();
    await lbs.ensureLoadBalancer('kubernetes', service(), []);
    await lbs.ensureLoadBalancerDeleted('kubernetes', service());
    expect(api.state.listLoadBalancers()).toEqual([]);
    expect(patches.patches.at(-1)!.patch).toEqual({
      metadata: { annotations: { [ANNOTATION_LOAD_BALANCER_ID]: null }, uid: UID },
    });
  });

  it('deletes the load balancer of a Service re-created under the same name without touching the new one (422 on the UID)', async () => {
    api.state.provisioningDelayMs = 0;
    const lbs = lbFacet();
    await lbs.ensureLoadBalancer('kubernetes', service(), []);
    // The server refuses to change the UID of the Service now bearing that name.
    patches.patchServiceStatus = () =>
      Promise.reject(Object.assign(new Error('metadata.uid: Invalid value: field is immutable'), { code: 422 }));
    await lbs.ensureLoadBalancerDeleted('kubernetes', withRecordedID(service(), 'lb-000001'));
    expect(api.state.listLoadBalancers()).toEqual([]);
  });

  it('keeps the annotation when it names a load balancer it does not delete (not ours, or none)', async () => {
    const unowned = api.state.createLoadBalancer({ name: 'unowned' });
    await lbFacet().ensureLoadBalancerDeleted('kubernetes', withRecordedID(service(), unowned.id));
    await lbFacet().ensureLoadBalancerDeleted('kubernetes', withRecordedID(service(), 'lb-424242'));
    expect(patches.patches).toEqual([]);
    expect(api.state.listLoadBalancers().map((l) => l.id)).toEqual([unowned.id]);
  });

  it('throws API errors other than 404 so the controller retries', async () => {
    const lbs = lbFacet();
    await expectRetry(lbs.ensureLoadBalancer('kubernetes', service(), []), 5_000);
    api.injectFault({ status: 500, method: 'DELETE' });
    await expect(lbs.ensureLoadBalancerDeleted('kubernetes', service())).rejects.toThrow(/HTTP 500/);
    expect(api.state.listLoadBalancers()).toHaveLength(1);
  });
});

describe('LoadBalancer: adoption and duplicates', () => {
  it('adopts an existing unlabelled load balancer named by the ID annotation', async () => {
    const existing = api.state.createLoadBalancer({ name: 'hand-made', labels: { team: 'net' } });
    api.state.activateLoadBalancer(existing.id);
    const svc = service({ annotations: { [ANNOTATION_LOAD_BALANCER_ID]: existing.id } });
    const status = await lbFacet().ensureLoadBalancer('kubernetes', svc, []);
    expect(status.ingress?.[0]?.ip).toBe(api.state.getLoadBalancer(existing.id)!.public_ip);
    expect(api.state.listLoadBalancers()).toHaveLength(1);
    expect(api.state.getLoadBalancer(existing.id)!.labels).toEqual({
      team: 'net',
      [LABEL_SERVICE_UID]: UID,
      [LABEL_CLUSTER_ID]: 'test-cluster',
      [LABEL_SERVICE_NAMESPACE]: 'default',
      [LABEL_SERVICE_NAME]: 'web',
    });
    expect(patches.patches).toHaveLength(0); // the annotation already holds the ID
  });

  it('refuses to adopt a load balancer owned by another cluster or Service', async () => {
    const foreign = api.state.createLoadBalancer({
      name: 'theirs',
      labels: { [LABEL_CLUSTER_ID]: 'another-cluster', [LABEL_SERVICE_UID]: UID },
    });
    const otherSvc = api.state.createLoadBalancer({
      name: 'sibling',
      labels: { [LABEL_CLUSTER_ID]: 'test-cluster', [LABEL_SERVICE_UID]: 'someone-else' },
    });
    const lbs = lbFacet();
    await expect(
      lbs.ensureLoadBalancer('kubernetes', service({ annotations: { [ANNOTATION_LOAD_BALANCER_ID]: foreign.id } }), []),
    ).rejects.toThrow(`names load balancer ${foreign.id}, but it belongs to cluster another-cluster`);
    await expect(
      lbs.ensureLoadBalancer(
        'kubernetes',
        service({ annotations: { [ANNOTATION_LOAD_BALANCER_ID]: otherSvc.id } }),
        [],
      ),
    ).rejects.toThrow('it belongs to another Service (UID someone-else)');
    expect(api.state.getLoadBalancer(foreign.id)!.labels[LABEL_CLUSTER_ID]).toBe('another-cluster');
    expect(api.state.listLoadBalancers()).toHaveLength(2);
  });

  it('does not create a load balancer for an annotated ID that does not exist (a typo, or deleted out of band); without the annotation it creates one and records its ID', async () => {
    const svc = service({ annotations: { [ANNOTATION_LOAD_BALANCER_ID]: 'lb-424242' } });
    const err = await lbFacet()
      .ensureLoadBalancer('kubernetes', svc, [])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidAnnotationError);
    expect((err as Error).message).toBe(
      `invalid annotations on service default/web: annotation ${ANNOTATION_LOAD_BALANCER_ID}: load balancer "lb-424242" does not exist; correct the ID, or remove the annotation to let the provider create a load balancer`,
    );
    expect(api.state.listLoadBalancers()).toEqual([]);
    expect(api.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    // The person removes the annotation: now the provider creates one and records its ID.
    await expectRetry(lbFacet().ensureLoadBalancer('kubernetes', service(), []), 5_000);
    expect(api.state.listLoadBalancers().map((l) => l.id)).toEqual(['lb-000001']);
    expect(patches.patches[0]!.patch).toEqual({
      metadata: { annotations: { [ANNOTATION_LOAD_BALANCER_ID]: 'lb-000001' } },
    });
  });

  it('does not create a duplicate after a failed ID write-back (or a failed status write)', async () => {
    api.state.provisioningDelayMs = 0;
    const lbs = lbFacet();
    patches.failNext = 1;
    await expect(lbs.ensureLoadBalancer('kubernetes', service(), [])).rejects.toThrow(
      /^mockcloud: could not record load balancer lb-000001 on service default\/web: /,
    );
    // The controller retries with the Service as it was: no annotation. The labels find the load balancer.
    const status = await lbs.ensureLoadBalancer('kubernetes', service(), []);
    expect(status.ingress).toHaveLength(1);
    // And once more, as after a failed Service status write by the controller.
    await lbs.ensureLoadBalancer('kubernetes', service(), []);
    expect(api.state.listLoadBalancers()).toHaveLength(1);
    expect(api.requests().filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('resolves a retried create whose first attempt went through (409 on the name)', async () => {
    // The first POST is answered too late for the client (timeout) but still creates the load balancer;
    // the retry then gets 409 and the provider finds its own load balancer by name.
    api.injectFault({ latencyMs: 300, method: 'POST', count: 1 });
    const lbs = lbFacet({
      requestTimeoutMs: 100,
      retry: { retries: 2, minDelayMs: 500, maxDelayMs: 500, maxRetryAfterMs: 0 },
    });
    await expectRetry(lbs.ensureLoadBalancer('kubernetes', service(), []), 5_000);
    expect(
      api
        .requests()
        .filter((r) => r.method === 'POST')
        .map((r) => r.status),
    ).toEqual([201, 409]);
    expect(api.state.listLoadBalancers()).toHaveLength(1);
  });

  it('refuses a name taken by a load balancer it does not own', async () => {
    api.state.createLoadBalancer({ name: NAME, labels: { owner: 'someone' } });
    await expect(lbFacet().ensureLoadBalancer('kubernetes', service(), [])).rejects.toThrow(
      `load balancer name ${NAME} is taken by lb-000001 that this Service does not own`,
    );
  });
});
