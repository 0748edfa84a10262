/**
 * The conformance suite itself: a provider keeping the whole contract passes every check (registered with
 * describeProviderConformance below), and each deliberate bug fails exactly the check written for it, with
 * a message naming the call. Also: option and fixture validation, coverage, and FakeCloud's two findings.
 */
import {
  ConformanceViolation,
  FakeCloud,
  formatCoverage,
  type ProviderConformanceOptions,
  type ProviderFixture,
  planProviderConformance,
} from '@ccm-kit/testing';
import { describeProviderConformance } from '@ccm-kit/testing/vitest';
import { describe, expect, it } from 'vitest';
import { type Bug, memoryFixture, memoryNodes } from './conformance-memory-cloud.js';

// Short limits for the mutant runs; the hang and never-provisioned mutants wait for them.
const fast = { callMs: 500, ensureMs: 500, retryCapMs: 20, settleMs: 30 };

describeProviderConformance({
  name: 'reference MemoryCloud',
  setup: () => memoryFixture(),
  loadBalancer: { nodes: () => memoryNodes },
  facets: ['instancesV2', 'instances', 'zones', 'loadBalancer', 'routes'],
  timeouts: { retryCapMs: 20 },
});

async function runCheck(id: string, bugs: Bug[], extra: Partial<ProviderConformanceOptions> = {}): Promise<unknown> {
  const plan = await planProviderConformance({
    name: `bugs ${bugs.join(',')}`,
    setup: () => memoryFixture(bugs),
    loadBalancer: { nodes: () => memoryNodes },
    timeouts: fast,
    ...extra,
  });
  const check = plan.checks.find((c) => c.id === id);
  if (!check) throw new Error(`no check ${id} in ${plan.checks.map((c) => c.id).join(', ')}`);
  return check.run().then(
    () => undefined,
    (err: unknown) => err,
  );
}

// [bug, the check that must catch it, a part of its message]
const MUTANTS: [Bug, string, RegExp][] = [
  ['bad-provider-name', 'provider/name', /"memory cloud" is not a URL scheme/],
  ['cluster-id-string', 'provider/cluster-id', /hasClusterID\(\) returned "yes"/],
  [
    'exists-false-on-error',
    'instancesV2/outage',
    /instanceExists\(existingNode \(node-a\)\) resolved false while the cloud API was failing/,
  ],
  [
    'metadata-undefined-on-error',
    'instancesV2/outage',
    /instanceMetadata\(existingNode \(node-a\)\) resolved undefined while/,
  ],
  ['notfound-on-error', 'instancesV2/outage', /rejected with InstanceNotFoundError while the cloud API was failing/],
  ['foreign-provider-id', 'instancesV2/metadata', /providerID "other:\/\/m-a" does not start with "memory:\/\/"/],
  ['unstable-addresses', 'instancesV2/metadata-stable', /changed between calls/],
  [
    'name-only-lookup',
    'instancesV2/replaced',
    /instanceExists\(a Node named like existingNode with missingNode's providerID \(node-a, memory:\/\/m-gone\)\) resolved true/,
  ],
  ['stopped-missing', 'instancesV2/stopped', /a stopped machine still exists/],
  ['invents-missing-metadata', 'instancesV2/missing', /instanceMetadata\(missingNode .*\) resolved \{"providerID"/],
  ['ignores-abort', 'instancesV2/abort', /instanceExists\(existingNode\) resolved true with an already-aborted signal/],
  ['ignores-abort', 'instances/abort', /with an already-aborted signal; reject/],
  ['ignores-abort', 'zones/abort', /getZoneByProviderID\(existingNode\) resolved/],
  ['ignores-abort', 'loadBalancer/abort', /getLoadBalancer resolved .* with an already-aborted signal/],
  ['ignores-abort', 'routes/abort', /createRoute resolved with an already-aborted signal/],
  [
    'abandons-aborted-work',
    'instancesV2/abort',
    /promise rejection\(s\) nobody handled while this check ran \(first: Error: ECONNREFUSED \(abandoned request\)\)/,
  ],
  ['abandons-aborted-work', 'loadBalancer/abort', /nobody handled while this check ran/],
  ['hangs', 'instancesV2/exists', /did not settle within 500 ms \(timeouts\.callMs\)/],
  [
    'instance-id-plain-error',
    'instances/instance-id',
    /rejected with Error: no such machine; expected an InstanceNotFoundError/,
  ],
  ['addresses-differ', 'instances/addresses', /nodeAddresses\(name\) .* differs from nodeAddressesByProviderID/],
  ['v1-exists-false-on-error', 'instances/outage', /instanceExistsByProviderID\(memory:\/\/m-a\) resolved false while/],
  ['constant-lb-name', 'loadBalancer/name', /got the same name "lb"/],
  [
    'rejects-source-ranges',
    'loadBalancer/capability-source-ranges',
    /ensureLoadBalancer\(default\/conformance-0\) rejected: .*source ranges are not supported/,
  ],
  [
    'undeclared-ip-mode',
    'loadBalancer/capability-ip-modes',
    /returned ipMode "Proxy", not declared in capabilities\.ipModes \["VIP"\]/,
  ],
  ['malformed-capabilities', 'loadBalancer/capabilities', /protocols must be a list of TCP, UDP, SCTP, got \["HTTP"\]/],
  [
    'get-reports-unknown',
    'loadBalancer/get-unknown',
    /resolved \{"ingress".* for a Service that never had one; expected undefined/,
  ],
  ['empty-ingress', 'loadBalancer/ensure', /the status has no ingress/],
  ['never-provisioned', 'loadBalancer/ensure', /still throwing RetryError after \d+ attempts in 500 ms/],
  ['implemented-elsewhere', 'loadBalancer/ensure', /threw ImplementedElsewhereError; give the suite a Service/],
  ['new-ip-each-ensure', 'loadBalancer/ensure-twice', /the second ensureLoadBalancer returned ingress/],
  [
    'racy-create',
    'loadBalancer/ensure-concurrent',
    /the cloud should hold 1 load balancer\(s\) beyond the 0 it had, but it added \["lb-\d+","lb-\d+"\]/,
  ],
  ['update-fails', 'loadBalancer/update', /updateLoadBalancer\(default\/conformance-0, 1 of 2 nodes\) rejected/],
  [
    'delete-unknown-throws',
    'loadBalancer/delete-unknown',
    /ensureLoadBalancerDeleted\(default\/conformance-0\) \(never created\) rejected: Error: HTTP 404/,
  ],
  ['delete-unknown-throws', 'loadBalancer/delete', /\(second time\) rejected/],
  ['delete-keeps', 'loadBalancer/delete', /resolved \{"ingress".* after ensureLoadBalancerDeleted; expected undefined/],
  [
    'delete-all',
    'loadBalancer/independent',
    /getLoadBalancer\(default\/conformance-1\) after deleting default\/conformance-0's resolved undefined/,
  ],
  [
    'delete-implemented-elsewhere',
    'loadBalancer/delete',
    /threw ImplementedElsewhereError; deletion must never be refused/,
  ],
  ['ensure-swallows-errors', 'loadBalancer/outage-ensure', /during the outage resolved \{"ingress"/],
  [
    'get-undefined-on-error',
    'loadBalancer/outage-get',
    /resolved undefined while the cloud API was failing; .* leaking the load balancer/,
  ],
  [
    'delete-swallows-errors',
    'loadBalancer/outage-delete',
    /resolved during the outage, but after healing getLoadBalancer still reports/,
  ],
  [
    'route-delete-throws',
    'routes/delete-twice',
    /\(already gone\) rejected: Error: route 10\.244\.250\.0\/24 not found/,
  ],
  ['routes-empty-on-error', 'routes/outage', /listRoutes resolved \[\] while the cloud API was failing/],
  [
    'list-wrong-name',
    'loadBalancer/list',
    /listLoadBalancers records Service \{"namespace":"default","name":"conformance-0-x"/,
  ],
  [
    'list-keeps-deleted',
    'loadBalancer/list',
    /listLoadBalancers still lists \["lb-1"\] for default\/conformance-0 after ensureLoadBalancerDeleted/,
  ],
  [
    'delete-by-name-only',
    'loadBalancer/list-rebuilt-delete',
    /getLoadBalancer\(default\/conformance-0\) resolved \{"ingress".* after ensureLoadBalancerDeleted with the rebuilt Service; expected undefined/,
  ],
];

describe('each contract violation fails the check written for it', () => {
  it.each(MUTANTS)('%s is caught by %s', async (bug, id, message) => {
    const err = await runCheck(id, [bug]);
    expect(err).toBeInstanceOf(ConformanceViolation);
    expect((err as ConformanceViolation).check).toBe(id);
    expect((err as Error).message).toMatch(message);
    // The same check passes without the bug.
    expect(await runCheck(id, [])).toBeUndefined();
  });
});

describe('planning', () => {
  it('plans no checks for facets a provider lacks, and reports them as not implemented', async () => {
    const plan = await planProviderConformance({
      name: 'identity only',
      setup: () => ({ cloud: { providerName: () => 'bare', hasClusterID: () => false } }),
    });
    expect(plan.checks.map((c) => c.id)).toEqual(['provider/name', 'provider/cluster-id']);
    expect(plan.coverage.implemented).toEqual(['provider']);
    expect(plan.coverage.notImplemented).toEqual(['instancesV2', 'instances', 'zones', 'loadBalancer', 'routes']);
    expect(formatCoverage(plan.coverage)).toContain(
      'not implemented (no checks): instancesV2, instances, zones, loadBalancer, routes',
    );
    for (const check of plan.checks) await check.run();
  });

  it('leaves out outage, stopped-node and abort checks the fixture or options do not enable', async () => {
    const plan = await planProviderConformance({
      name: 'no extras',
      setup: () => {
        const { breakCloud: _b, healCloud: _h, stoppedNode: _s, listCloudLoadBalancers: _l, ...rest } = memoryFixture();
        return rest;
      },
      abortSignals: false,
    });
    const ids = plan.checks.map((c) => c.id);
    expect(ids.filter((id) => /outage|abort|stopped/.test(id))).toEqual([]);
    expect(ids).toContain('loadBalancer/ensure-concurrent');
    expect(plan.coverage).toMatchObject({
      outage: [],
      stoppedNode: false,
      listsLoadBalancers: false,
      abortSignals: false,
    });
    const text = formatCoverage(plan.coverage);
    expect(text).toContain('cloud outage (breakCloud): not covered');
    expect(text).toContain('AbortSignal: not covered (abortSignals: false)');
  });

  it('limits outage checks to outageFacets', async () => {
    const plan = await planProviderConformance({
      name: 'lb outage only',
      setup: () => memoryFixture(),
      outageFacets: ['loadBalancer'],
    });
    expect(plan.coverage.outage).toEqual(['loadBalancer']);
    expect(plan.checks.filter((c) => c.id.endsWith('outage') || c.id.includes('/outage-')).map((c) => c.id)).toEqual([
      'loadBalancer/outage-ensure',
      'loadBalancer/outage-get',
      'loadBalancer/outage-delete',
    ]);
  });

  it('fails the declared-facets check when a declared facet is missing', async () => {
    const plan = await planProviderConformance({
      name: 'declared',
      setup: () => ({ cloud: { providerName: () => 'bare', hasClusterID: () => true } }),
      facets: ['loadBalancer'],
    });
    const check = plan.checks.find((c) => c.id === 'provider/facets');
    await expect(check?.run()).rejects.toThrow('implemented facets are provider; missing: loadBalancer');
  });

  it('builds a fresh fixture for every check and tears each down', async () => {
    let built = 0;
    let tornDown = 0;
    const plan = await planProviderConformance({
      name: 'counting',
      setup: () => {
        built++;
        return { ...memoryFixture(), teardown: () => void tornDown++ };
      },
      loadBalancer: { nodes: () => memoryNodes },
      timeouts: fast,
    });
    expect([built, tornDown]).toEqual([1, 1]);
    for (const c of plan.checks.filter((x) => x.facet === 'loadBalancer')) await c.run();
    const lbChecks = plan.checks.filter((x) => x.facet === 'loadBalancer').length;
    expect([built, tornDown]).toEqual([1 + lbChecks, 1 + lbChecks]);
  });

  it('calls initialize with a signal that aborts when the check ends, and a client builder that explains itself', async () => {
    const signals: AbortSignal[] = [];
    const plan = await planProviderConformance({
      name: 'init',
      setup: () => ({
        cloud: {
          providerName: () => 'init',
          hasClusterID: () => true,
          initialize: (builder, signal) => {
            signals.push(signal);
            expect(() => builder.config('x')).toThrow('return a clientBuilder from setup() (or set initialize: false)');
          },
        },
      }),
    });
    await plan.checks[0]!.run();
    expect(signals).toHaveLength(2);
    expect(signals.every((s) => s.aborted)).toBe(true);
  });
});

describe('validation', () => {
  const setup = () => memoryFixture();
  it.each([
    [{ name: '', setup }, 'describeProviderConformance: name must be a non-empty string'],
    [{ name: 'x' }, 'describeProviderConformance: setup must be a function'],
    [{ name: 'x', setup, timeouts: { ensureMs: -1 } }, 'timeouts.ensureMs must be a positive number of milliseconds'],
    [{ name: 'x', setup, timeouts: { bogusMs: 1 } }, 'timeouts.bogusMs: unknown field'],
    [{ name: 'x', setup, timeouts: { settleMs: 0 } }, 'timeouts.settleMs must be a positive number'],
    [{ name: 'x', setup, outageFacets: ['provider'] }, 'outageFacets: unknown facet "provider"'],
    [{ name: 'x', setup, abortSignals: 'yes' }, 'abortSignals must be a boolean'],
    [{ name: 'x', setup, loadBalancer: { service: {} } }, 'loadBalancer.service must be a function'],
  ])('rejects bad options (%#)', async (options, message) => {
    await expect(planProviderConformance(options as unknown as ProviderConformanceOptions)).rejects.toThrow(message);
    expect(() => describeProviderConformance(options as unknown as ProviderConformanceOptions)).toThrow(message);
  });

  it.each([
    [
      (f: ProviderFixture) => ({ ...f, existingNode: undefined }),
      'setup() must return existingNode (a V1Node with metadata.name) because the provider implements instances',
    ],
    [(f: ProviderFixture) => ({ ...f, missingNode: {} }), 'setup() returned missingNode without metadata.name'],
    [(f: ProviderFixture) => ({ ...f, healCloud: undefined }), 'must return both breakCloud and healCloud, or neither'],
    [(f: ProviderFixture) => ({ ...f, cloud: {} }), 'returned a cloud without providerName()/hasClusterID()'],
  ])('rejects a bad fixture, naming the field (%#)', async (edit, message) => {
    let tornDown = false;
    const options = {
      name: 'bad fixture',
      setup: () => ({
        ...edit(memoryFixture()),
        teardown: () => {
          tornDown = true;
        },
      }),
    } as ProviderConformanceOptions;
    await expect(planProviderConformance(options)).rejects.toThrow(message);
    expect(tornDown).toBe(true);
  });

  it('bounds setup() by timeouts.setupMs', async () => {
    const options: ProviderConformanceOptions = {
      name: 'slow',
      setup: () => new Promise<ProviderFixture>(() => {}),
      timeouts: { setupMs: 30 },
    };
    await expect(planProviderConformance(options)).rejects.toThrow('setup() did not settle within 30 ms');
  });
});

describe('FakeCloud findings (upstream fake semantics the contract rejects)', () => {
  // When FakeCloud changes here, enable these facets in conformance-fake-cloud.test.ts.
  it('getLoadBalancer answers the `exists` knob, not the balancers ensureLoadBalancer stored', async () => {
    const plan = await planProviderConformance({
      name: 'stock FakeCloud',
      setup: () => ({
        cloud: new FakeCloud({ externalIP: '203.0.113.9' }),
        existingNode: { metadata: { name: 'n' } },
        missingNode: { metadata: { name: 'm' } },
      }),
    });
    const ensure = plan.checks.find((c) => c.id === 'loadBalancer/ensure');
    await expect(ensure?.run()).rejects.toThrow(
      /getLoadBalancer\(default\/conformance-0\) resolved undefined, but ensureLoadBalancer returned/,
    );
  });

  it('deleteRoute of a route that is gone throws (and sets the sticky err)', async () => {
    const plan = await planProviderConformance({
      name: 'stock FakeCloud',
      setup: () => ({
        cloud: new FakeCloud(),
        existingNode: { metadata: { name: 'n' } },
        missingNode: { metadata: { name: 'm' } },
      }),
    });
    const twice = plan.checks.find((c) => c.id === 'routes/delete-twice');
    await expect(twice?.run()).rejects.toThrow(/\(already gone\) rejected: Error: no route found for node:n/);
  });
});

/** The reference cloud with only some facets: the accessors of the others answer undefined. */
function withFacets(keep: string[]): ProviderFixture {
  const fixture = memoryFixture();
  const cloud = fixture.cloud;
  const facets = ['instancesV2', 'instances', 'zones', 'loadBalancer', 'routes'] as const;
  const view = {
    providerName: () => cloud.providerName(),
    hasClusterID: () => cloud.hasClusterID(),
    ...Object.fromEntries(facets.map((f) => [f, () => (keep.includes(f) ? cloud[f]() : undefined)])),
  };
  return { ...fixture, cloud: view };
}

describe('providerID of a Node without spec.providerID (as the cloud-node controller finds it)', () => {
  it('comes from InstancesV2 instanceMetadata when the provider has Zones but no Instances', async () => {
    const plan = await planProviderConformance({
      name: 'v2 + zones',
      setup: () => withFacets(['instancesV2', 'zones']),
    });
    const zoneChecks = plan.checks.filter((c) => c.facet === 'zones');
    expect(zoneChecks.length).toBeGreaterThan(0);
    for (const check of zoneChecks) await check.run();
  });

  it('is reported as needed, naming both facets, when the provider has neither', async () => {
    const plan = await planProviderConformance({ name: 'zones only', setup: () => withFacets(['zones']) });
    const check = plan.checks.find((c) => c.id === 'zones/consistent');
    const err = await check!.run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).message).toMatch(
      /existingNode needs spec\.providerID for these checks \(the provider has neither Instances nor InstancesV2 to derive it from\)/,
    );
  });
});
