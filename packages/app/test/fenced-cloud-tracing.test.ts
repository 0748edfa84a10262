/**
 * The cloud-call spans of the provider proxy the controllers get (docs/tracing.md), with a real cloud budget:
 * each facet call is a span named after the Go interface and method, child of its reconcile, with the lane it
 * was charged to and the milliseconds it waited for its token; a refusal at the lease fence is an error span; a
 * reconcile the cloud throttled says so.
 */
import { CloudBudget, withCloudLane } from '@ccm-kit/runtime/budget';
import { processNextWorkItem } from '@ccm-kit/runtime/controller';
import { type LeaseFence } from '@ccm-kit/runtime/leader-election';
import { loadTracing, SPAN_ATTRIBUTES as A } from '@ccm-kit/runtime/tracing';
import { Workqueue } from '@ccm-kit/runtime/workqueue';
import { setProcessCloudBudget } from '@ccm-kit/runtime/internal';
import { FakeCloud, loadBalancerService, ThrottledError } from '@ccm-kit/testing';
import type { V1Service } from '@kubernetes/client-node';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fencedCloud } from '../src/manager/fenced-cloud.js';

const exporter = new InMemorySpanExporter();
beforeAll(async () => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  expect(await loadTracing()).toBe(true);
});
afterAll(async () => {
  trace.disable();
  await loadTracing();
});

const service = (name: string): V1Service => loadBalancerService(name, { uid: name });

it('facet calls are spans under their reconcile with the lane and the time waited in the budget', async () => {
  // One token, refilled every 100 ms: the second call waits for it.
  const budget = new CloudBudget({ qps: 10, burst: 1, registry: new Registry() });
  const cloud = fencedCloud(new FakeCloud(), () => undefined, budget);
  const queue = new Workqueue<string>();
  queue.add('default/a');
  await processNextWorkItem(
    {
      name: 'node',
      queue,
      reconcile: () =>
        withCloudLane('hosts', async () => {
          const lb = cloud.loadBalancer!()!;
          await lb.getLoadBalancer('kubernetes', service('a'));
          await lb.getLoadBalancer('kubernetes', service('b'));
        }),
    },
    new AbortController().signal,
  );
  queue.shutDown();
  const spans = exporter.getFinishedSpans();
  const reconcile = spans.find((s) => s.name === 'node reconcile')!;
  const calls = spans.filter((s) => s.name === 'LoadBalancer.getLoadBalancer');
  expect(calls).toHaveLength(2);
  for (const c of calls) {
    expect(c.parentSpanContext?.spanId).toBe(reconcile.spanContext().spanId);
    expect(c.attributes).toMatchObject({ [A.cloudLane]: 'hosts', [A.outcome]: 'success' });
  }
  expect(calls[0]!.attributes[A.cloudBudgetWaitMs]).toBe(0);
  expect(calls[1]!.attributes[A.cloudBudgetWaitMs]).toBeGreaterThanOrEqual(50);
});

it('a call refused at the lease fence is an error span', async () => {
  exporter.reset();
  const fence: LeaseFence = { isFenced: () => true, validForMs: () => 0, describe: () => 'kube-system/ccm' };
  const cloud = fencedCloud(new FakeCloud(), () => fence);
  await expect(cloud.loadBalancer!()!.ensureLoadBalancer('kubernetes', service('c'), [])).rejects.toThrow(/refused/);
  const [span] = exporter.getFinishedSpans();
  expect(span?.name).toBe('LoadBalancer.ensureLoadBalancer');
  expect(span?.attributes[A.outcome]).toBe('error');
  expect(span?.status.code).toBe(2);
});

it('a reconcile that failed on a cloud throttle is a span with outcome throttled, requeued after the delay', async () => {
  exporter.reset();
  const budget = new CloudBudget({ qps: 100, burst: 10, registry: new Registry() });
  setProcessCloudBudget(budget);
  try {
    const fake = new FakeCloud();
    fake.faults.injectError('getLoadBalancer', { error: () => new ThrottledError('getLoadBalancer', 2_000) });
    const cloud = fencedCloud(fake, () => undefined, budget);
    const queue = new Workqueue<string>();
    queue.add('default/d');
    await processNextWorkItem(
      {
        name: 'service',
        queue,
        onError: () => {},
        reconcile: async () => {
          await cloud.loadBalancer!()!.getLoadBalancer('kubernetes', service('d'));
        },
      },
      new AbortController().signal,
    );
    queue.shutDown();
  } finally {
    setProcessCloudBudget(undefined);
  }
  const reconcile = exporter.getFinishedSpans().find((s) => s.name === 'service reconcile')!;
  expect(reconcile.attributes).toMatchObject({
    [A.outcome]: 'throttled',
    [A.requeue]: 'after',
    [A.requeueAfterMs]: 2_000,
  });
});
