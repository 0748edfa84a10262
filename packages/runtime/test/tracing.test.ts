/**
 * Tracing (docs/tracing.md) with the OpenTelemetry SDK's in-memory exporter: off until a tracer provider is
 * registered; then a span per reconcile of the work loop with its outcome and requeue, cloud-call children with
 * lane, budget wait and the guard's attempts, and API-write children.
 */
import { RetryError } from '@ccm-kit/cloud-provider';
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { publishCloudBudgetCharge } from '../src/budget/charge.js';
import { withCloudController, withCloudLane } from '../src/budget/index.js';
import { processNextWorkItem, type QueueWorker } from '../src/controller/index.js';
import { CloudCallGuard } from '../src/guard/index.js';
import { loadTracing, SPAN_ATTRIBUTES as A } from '../src/tracing/index.js';
import { Workqueue } from '../src/workqueue/index.js';
import { kubeResourceOf, traceCloudCall } from '../src/internal.js';
import { traceApiWrite } from '../src/tracing/spans.js';
import { Registry } from 'prom-client';

const exporter = new InMemorySpanExporter();

function worker(reconcile: QueueWorker<string>['reconcile']): QueueWorker<string> & { queue: Workqueue<string> } {
  return { name: 'service', queue: new Workqueue<string>(), reconcile, onError: () => {} };
}

async function runOne(w: QueueWorker<string> & { queue: Workqueue<string> }, key: string): Promise<void> {
  w.queue.add(key);
  await withCloudController('service-lb-controller', () => processNextWorkItem(w, new AbortController().signal));
  w.queue.shutDown();
}

const byName = (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name);
const one = (name: string): ReadableSpan => {
  const spans = byName(name);
  expect(spans.map((s) => s.name)).toEqual([name]);
  return spans[0]!;
};
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

describe('tracing off', () => {
  it('without a registered tracer provider loadTracing() is false and nothing is traced', async () => {
    expect(await loadTracing()).toBe(false);
    const w = worker(async () => {
      await traceCloudCall('LoadBalancer.ensureLoadBalancer', async () => 'ok');
    });
    await runOne(w, 'default/web');
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('tracing on', () => {
  beforeAll(async () => {
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    expect(await loadTracing()).toBe(true);
  });
  afterEach(() => exporter.reset());
  afterAll(async () => {
    trace.disable();
    expect(await loadTracing()).toBe(false);
  });

  it('a reconcile is a span; its cloud calls and API writes are children with their attributes', async () => {
    const guard = new CloudCallGuard({ provider: 'tracetest', registry: new Registry(), minDelayMs: 1, maxDelayMs: 2 });
    let calls = 0;
    const w = worker(async () => {
      await withCloudLane('hosts', () =>
        traceCloudCall('LoadBalancer.updateLoadBalancer', () =>
          guard.call('update_lb', async () => {
            publishCloudBudgetCharge({
              lane: 'hosts',
              controller: 'service-lb-controller',
              operation: 'update_lb',
              waitedMs: 7,
            });
            if (++calls === 1) throw Object.assign(new Error('busy'), { status: 503 });
            return 'done';
          }),
        ),
      );
      await traceApiWrite(
        'PATCH',
        'https://127.0.0.1:6443/api/v1/namespaces/default/services/web/status',
        async () => ({ status: 200 }),
      );
    });
    await runOne(w, 'default/web');

    const reconcile = one('service-lb-controller reconcile');
    expect(reconcile.attributes).toMatchObject({
      [A.controller]: 'service-lb-controller',
      [A.queue]: 'service',
      [A.key]: 'default/web',
      [A.outcome]: 'success',
      [A.requeue]: 'none',
    });
    expect(parentOf(reconcile)).toBeUndefined();
    const cloud = one('LoadBalancer.updateLoadBalancer');
    expect(parentOf(cloud)).toBe(reconcile.spanContext().spanId);
    expect(cloud.attributes).toMatchObject({
      [A.cloudOperation]: 'LoadBalancer.updateLoadBalancer',
      [A.cloudLane]: 'hosts',
      [A.cloudAttempts]: 2,
      [A.cloudBudgetWaitMs]: 14,
      [A.outcome]: 'success',
      [A.controller]: 'service-lb-controller',
    });
    const api = one('cloud.api update_lb');
    expect(parentOf(api)).toBe(cloud.spanContext().spanId);
    expect(api.attributes).toMatchObject({ [A.cloudAttempts]: 2, [A.outcome]: 'success' });
    const write = one('PATCH services/status');
    expect(parentOf(write)).toBe(reconcile.spanContext().spanId);
    expect(write.attributes).toMatchObject({
      [A.httpMethod]: 'PATCH',
      [A.kubeResource]: 'services/status',
      [A.httpStatusCode]: 200,
      [A.urlPath]: '/api/v1/namespaces/default/services/web/status',
    });
  });

  it('a failed reconcile records its error and how the key was requeued', async () => {
    await runOne(
      worker(async () => {
        await traceCloudCall('LoadBalancer.ensureLoadBalancer', () => Promise.reject(new Error('quota exceeded')));
      }),
      'default/a',
    );
    const failed = one('service-lb-controller reconcile');
    expect(failed.attributes).toMatchObject({ [A.outcome]: 'error', [A.requeue]: 'rate-limited' });
    expect(failed.status.code).toBe(2);
    expect(failed.events.map((e) => e.name)).toEqual(['exception']);
    expect(one('LoadBalancer.ensureLoadBalancer').attributes[A.outcome]).toBe('error');
    exporter.reset();

    await runOne(
      worker(() => {
        throw new RetryError('creating', 2_000);
      }),
      'default/b',
    );
    expect(one('service-lb-controller reconcile').attributes).toMatchObject({
      [A.outcome]: 'retry',
      [A.requeue]: 'after',
      [A.requeueAfterMs]: 2_000,
    });
  });

  it('a cloud call outside any reconcile is a root span with the default lane; an API write there is not traced', async () => {
    await traceCloudCall('Instances.instanceExists', () => true);
    await traceApiWrite('PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ccm', async () => ({
      status: 200,
    }));
    const span = one('Instances.instanceExists');
    expect(parentOf(span)).toBeUndefined();
    expect(span.attributes).toMatchObject({ [A.cloudLane]: 'user', [A.outcome]: 'success', [A.cloudBudgetWaitMs]: 0 });
    expect(span.attributes[A.cloudAttempts]).toBeUndefined();
    expect(exporter.getFinishedSpans()).toHaveLength(1);
  });

  it('an API write answered ≥ 400 is an error span with its status code', async () => {
    await runOne(
      worker(async () => {
        await traceApiWrite('POST', '/api/v1/namespaces/default/events', async () => ({ status: 409 }));
      }),
      'default/c',
    );
    const write = one('POST events');
    expect(write.attributes[A.httpStatusCode]).toBe(409);
    expect(write.status.code).toBe(2);
  });
});

describe('kubeResourceOf', () => {
  it.each([
    ['/api/v1/namespaces/default/services/web/status', 'services/status'],
    ['https://10.0.0.1:6443/api/v1/nodes/n1?fieldManager=x', 'nodes'],
    ['/api/v1/nodes/n1/status', 'nodes/status'],
    ['/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ccm', 'leases'],
    ['/api/v1/namespaces/default/events', 'events'],
    ['/api/v1/namespaces/default', 'namespaces'],
    ['https://rancher/k8s/clusters/c1/api/v1/nodes/n1', 'nodes'],
    ['/healthz', '/healthz'],
  ])('%s → %s', (path, resource) => {
    expect(kubeResourceOf(path)).toBe(resource);
  });
});
