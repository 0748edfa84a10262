/**
 * The cloud budget end to end: startCloudControllerManager in-process against a real API server.
 * - With a FakeCloud that allows 5 calls a second (429 beyond) and `--cloud-api-qps=5`, the Node status pass and
 *   the lifecycle monitor ask for far more than that every second (periodic lane); a new LoadBalancer Service
 *   (user lane) still gets its ingress without waiting behind them, and without a failed sync.
 * - A Service whose `ensureLoadBalancer` the cloud throttles six times in a row (HTTP 429, `Retry-After`) gets
 *   its ingress seconds after the throttling ends: its backoff did not grow (upstream's 5 s doubling would wait
 *   160 s after the sixth failure).
 */
import { metricsRegistry, setLogWriter } from '@ccm-kit/runtime';
import { type CloudBudgetCharge, onCloudBudgetCharge } from '@ccm-kit/runtime/budget';
import { type ControlPlane, FakeCloud } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { beforeAll, expect, it } from 'vitest';
import { startCloudControllerManager } from '../src/index.js';

const controlPlane = useControlPlane();
let cp: ControlPlane;
beforeAll(() => {
  cp = controlPlane();
});

const NODES = 40;
const RATE = 5;

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const m = (await metricsRegistry.getMetricsAsJSON()).find((x) => x.name === name);
  const values = (m?.values ?? []) as { labels: Record<string, unknown>; value: number; metricName?: string }[];
  return values
    .filter((v) => (v.metricName ?? name) === name && Object.entries(labels).every(([k, w]) => v.labels[k] === w))
    .reduce((sum, v) => sum + v.value, 0);
}

it('a new LoadBalancer Service gets its ingress while periodic work is throttled by the budget', async () => {
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const cloud = new FakeCloud({ enableInstancesV2: true });
  cloud.externalIP = '10.9.8.7';
  for (let i = 0; i < NODES; i++) {
    cloud.setInstance(`budget-${i}`, { providerID: `fake://budget-${i}`, zone: 'z1' });
    await core.createNode({ body: { metadata: { name: `budget-${i}` }, spec: { providerID: `fake://budget-${i}` } } });
  }
  // The cloud's quota has the budget's rate and one call more of burst: two buckets of exactly the same rate and
  // burst disagree by a fraction of a token when a call's check comes a little earlier after the budget's grant
  // than the one before, and the cloud then refuses it (a 429 a real cloud can send too; AIMD's business, not this
  // test's).
  cloud.faults.throttle({ qps: RATE, burst: RATE + 1 });
  const charges: CloudBudgetCharge[] = [];
  const off = onCloudBudgetCharge((c) => charges.push(c));
  const ccm = await startCloudControllerManager({
    argv: [
      ...['--cloud-provider=fake', '--leader-elect=false', '--configure-cloud-routes=false', '--secure-port=0'],
      ...[`--cloud-api-qps=${RATE}`, `--cloud-api-burst=${RATE}`],
      // Periodic demand far above the rate: 40 Nodes, a status pass (20 calls at once) and a monitor pass
      // every second.
      ...['--node-status-update-frequency=1s', '--concurrent-node-status-updates=20', '--node-monitor-period=1s'],
    ],
    cloud,
    kubeConfig: cp.kubeConfig,
  });
  try {
    // The periodic lane is backed up: its calls wait seconds for a token.
    await eventuallyValue(() => charges.some((c) => c.lane === 'periodic' && c.waitedMs > 3_000), {
      what: 'periodic calls waiting in the budget',
      timeoutMs: 60_000,
    });
    const ns = 'default';
    await core.createNamespacedService({
      namespace: ns,
      body: {
        metadata: { name: 'budget-web' },
        spec: { type: 'LoadBalancer', ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] },
      },
    });
    const ingress = await eventuallyValue(
      async () =>
        (await core.readNamespacedService({ namespace: ns, name: 'budget-web' })).status?.loadBalancer?.ingress?.[0]
          ?.ip,
      { what: 'the Service ingress', timeoutMs: 60_000 },
    );
    expect(ingress).toBe('10.9.8.7');
    const ensure = charges.filter((c) => c.operation === 'loadBalancer.ensureLoadBalancer');
    expect(ensure.map((c) => [c.lane, c.controller])).toEqual([['user', 'service-lb-controller']]);
    // The user's call waited about one token (200 ms at 5/s), while periodic calls around it waited seconds.
    expect(ensure[0]!.waitedMs).toBeLessThan(1_500);
    expect(Math.max(...charges.filter((c) => c.lane === 'periodic').map((c) => c.waitedMs))).toBeGreaterThan(3_000);
    const failed = (await core.listNamespacedEvent({ namespace: ns })).items.filter(
      (e) => e.involvedObject.name === 'budget-web' && e.reason === 'SyncLoadBalancerFailed',
    );
    expect(failed).toEqual([]);
    // Per controller and lane, on /metrics.
    expect(
      await metric('cloudprovider_api_budget_calls_total', { controller: 'cloud-node-controller', lane: 'periodic' }),
    ).toBeGreaterThan(0);
    // The monitor shares the periodic lane with the status pass, first come first served: it is not starved.
    await eventuallyValue(
      async () =>
        (await metric('cloudprovider_api_budget_calls_total', {
          controller: 'cloud-node-lifecycle-controller',
          lane: 'periodic',
        })) > 0,
      { what: 'lifecycle monitor calls', timeoutMs: 60_000 },
    );
  } finally {
    off();
    await ccm.stop();
    await ccm.done;
    for (let i = 0; i < NODES; i++) await core.deleteNode({ name: `budget-${i}` });
  }
}, 180_000);

it('a Service the cloud throttles six times in a row gets its ingress without a grown backoff', async () => {
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const cloud = new FakeCloud({ enableInstancesV2: true });
  cloud.externalIP = '10.9.8.6';
  cloud.setInstance('budget-lb-node', { providerID: 'fake://budget-lb-node', zone: 'z1' });
  await core.createNode({
    body: { metadata: { name: 'budget-lb-node' }, spec: { providerID: 'fake://budget-lb-node' } },
  });
  // As an HTTP client surfaces a 429: a numeric status and the Retry-After in ms; not a RetryError.
  cloud.faults.injectError('ensureLoadBalancer', {
    subject: 'default/budget-throttled',
    times: 6,
    error: () => Object.assign(new Error('429 Too Many Requests'), { status: 429, retryAfterMs: 300 }),
  });
  const lines: string[] = [];
  setLogWriter((line) => {
    lines.push(line);
    process.stderr.write(`${line}\n`);
  });
  const ccm = await startCloudControllerManager({
    argv: [
      ...['--cloud-provider=fake', '--leader-elect=false', '--configure-cloud-routes=false', '--secure-port=0'],
      ...['--cloud-api-qps=50', '--cloud-api-burst=50'],
    ],
    cloud,
    kubeConfig: cp.kubeConfig,
  });
  try {
    await core.createNamespacedService({
      namespace: 'default',
      body: {
        metadata: { name: 'budget-throttled' },
        spec: { type: 'LoadBalancer', ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] },
      },
    });
    const ingress = await eventuallyValue(
      async () =>
        (await core.readNamespacedService({ namespace: 'default', name: 'budget-throttled' })).status?.loadBalancer
          ?.ingress?.[0]?.ip,
      // Six requeues after the 300 ms Retry-After; with the backoff grown (5 s doubling), the seventh attempt
      // would come 160 s after the sixth.
      { what: 'the throttled Service ingress', timeoutMs: 30_000 },
    );
    expect(ingress).toBe('10.9.8.6');
    expect(
      cloud.callLog.entries('ensureLoadBalancer').filter((e) => e.subject === 'default/budget-throttled'),
    ).toHaveLength(7);
    const requeues = lines.filter((l) => l.includes('error processing service default/budget-throttled (retrying in'));
    expect(requeues).toHaveLength(6);
    expect(requeues[0]).toContain('429 Too Many Requests');
    expect(lines.filter((l) => l.includes('retrying with exponential backoff'))).toEqual([]);
  } finally {
    setLogWriter((line) => process.stderr.write(`${line}\n`));
    await ccm.stop();
    await ccm.done;
    await core.deleteNamespacedService({ namespace: 'default', name: 'budget-throttled' });
    await core.deleteNode({ name: 'budget-lb-node' });
  }
}, 120_000);
