/**
 * Tracing end to end (docs/tracing.md): the binary registers an OpenTelemetry SDK tracer provider before
 * starting the manager; a LoadBalancer Service reconciled against the real API server yields a reconcile span
 * with a cloud-call child and an API-write child, and the same spans reach an OTLP/HTTP receiver on loopback
 * through the standard OTEL_EXPORTER_OTLP_ENDPOINT variable.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SPAN_ATTRIBUTES as A } from '@ccm-kit/runtime/tracing';
import { type ControlPlane, FakeCloud } from '@ccm-kit/testing';
import { eventuallyValue, useControlPlane } from '@ccm-kit/testing/vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCloudControllerManager } from '../src/index.js';

/** One span as the OTLP/HTTP JSON encoding carries it (the fields this test reads). */
interface OtlpSpan {
  name: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpSpan['attributes'] };
    scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
  }[];
}

/** The resource of docs/tracing.md's setup: the SDK's default, with OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. */
const DOCUMENTED_RESOURCE = 'defaultResource().merge(detectResources({ detectors: [envDetector] }))';

const controlPlane = useControlPlane();
let cp: ControlPlane;
let receiver: Server;
const received: OtlpSpan[] = [];
/** The `service.name` of each resource the receiver got spans of. */
const serviceNames = new Set<string>();
const contentTypes = new Set<string>();
const memory = new InMemorySpanExporter();
let provider: BasicTracerProvider;

beforeAll(async () => {
  cp = controlPlane();
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      contentTypes.add(`${req.method} ${req.url} ${req.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest;
      for (const rs of body.resourceSpans ?? []) {
        const name = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
        if (name !== undefined) serviceNames.add(name);
        for (const ss of rs.scopeSpans ?? []) received.push(...(ss.spans ?? []));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  // What an operator sets: the collector's base URL; the exporter sends to <endpoint>/v1/traces.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  process.env.OTEL_SERVICE_NAME = 'tracing-test-cloud-controller-manager';
  provider = new BasicTracerProvider({
    resource: defaultResource().merge(detectResources({ detectors: [envDetector] })),
    spanProcessors: [new SimpleSpanProcessor(memory), new SimpleSpanProcessor(new OTLPTraceExporter())],
  });
  trace.setGlobalTracerProvider(provider);
});

afterAll(async () => {
  trace.disable();
  await provider.shutdown();
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete process.env.OTEL_SERVICE_NAME;
  await new Promise((resolve) => receiver.close(resolve));
});

it("docs/tracing.md's setup builds the resource this test uses", () => {
  const docs = readFileSync(new URL('../../../docs/tracing.md', import.meta.url), 'utf8');
  expect(docs).toContain(`resource: ${DOCUMENTED_RESOURCE},`);
});

const attr = (s: OtlpSpan, key: string) => s.attributes?.find((a) => a.key === key)?.value.stringValue;

it('a LoadBalancer Service reconcile is a span with a cloud-call child and an API-write child, exported over OTLP/HTTP', async () => {
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const namespace = `trace-${Date.now()}`;
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const cloud = new FakeCloud();
  const ccm = await startCloudControllerManager({
    argv: ['--cloud-provider=fake', '--leader-elect=false', '--secure-port=0', '--controllers=service-lb-controller'],
    cloud,
    kubeConfig: cp.kubeConfig,
  });
  try {
    await core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'web' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } },
    });
    await eventuallyValue(async () => {
      const svc = await core.readNamespacedService({ namespace, name: 'web' });
      return (svc.status?.loadBalancer?.ingress?.length ?? 0) > 0;
    }, 'the Service to get its ingress');
  } finally {
    await ccm.stop();
  }
  await ccm.done;

  const key = `${namespace}/web`;
  const spans = memory.getFinishedSpans();
  const children = (parent: ReadableSpan) =>
    spans.filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId).map((s) => s.name);
  // The reconcile that ensured the balancer: its children are the cloud call and the status patch.
  const reconcile = spans.find(
    (s) =>
      s.name === 'service-lb-controller reconcile' &&
      s.attributes[A.key] === key &&
      children(s).includes('LoadBalancer.ensureLoadBalancer'),
  );
  expect(reconcile, spans.map((s) => `${s.name} ${JSON.stringify(s.attributes)}`).join('\n')).toBeDefined();
  expect(reconcile!.attributes).toMatchObject({
    [A.controller]: 'service-lb-controller',
    [A.queue]: 'service',
    [A.outcome]: 'success',
    [A.requeue]: 'none',
  });
  expect(children(reconcile!)).toEqual(
    expect.arrayContaining(['LoadBalancer.ensureLoadBalancer', 'PATCH services/status']),
  );
  const ensure = spans.find(
    (s) =>
      s.name === 'LoadBalancer.ensureLoadBalancer' && s.parentSpanContext?.spanId === reconcile!.spanContext().spanId,
  )!;
  expect(ensure.attributes).toMatchObject({
    [A.outcome]: 'success',
    [A.cloudLane]: expect.any(String),
    [A.cloudBudgetWaitMs]: 0,
  });
  const patch = spans.find(
    (s) => s.name === 'PATCH services/status' && s.parentSpanContext?.spanId === reconcile!.spanContext().spanId,
  )!;
  expect(patch.attributes).toMatchObject({
    [A.httpMethod]: 'PATCH',
    [A.kubeResource]: 'services/status',
    [A.httpStatusCode]: 200,
    [A.urlPath]: `/api/v1/namespaces/${namespace}/services/web/status`,
  });

  // The same spans over the wire, as a collector receives them.
  await provider.forceFlush();
  const wired = await eventuallyValue(() => {
    const r = received.find((s) => s.name === 'service-lb-controller reconcile' && attr(s, A.key) === key && s.spanId);
    return r && received.some((s) => s.parentSpanId === r.spanId && s.name === 'LoadBalancer.ensureLoadBalancer')
      ? r
      : undefined;
  }, 'the OTLP receiver to get the reconcile span and its cloud-call child');
  expect(attr(wired, A.controller)).toBe('service-lb-controller');
  expect([...contentTypes]).toContain('POST /v1/traces application/json');
  // Named by the operator's OTEL_SERVICE_NAME, not the SDK's `unknown_service:<process>`.
  expect([...serviceNames]).toEqual(['tracing-test-cloud-controller-manager']);
}, 120_000);
