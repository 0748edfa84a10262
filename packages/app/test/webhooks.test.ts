import { metricsRegistry } from '@ccm-kit/runtime';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@ccm-kit/runtime';
import { enabledWebhooks, serveAdmissionReview, type WebhookConfig } from '../src/index.js';

const allow: WebhookConfig = {
  path: '/allow',
  admissionHandler: (req) => ({ allowed: true, warnings: [`saw ${req.operation}`] }),
};
const review = (request: unknown) =>
  JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });

async function failures(webhook: string, code: string): Promise<number> {
  const m = await metricsRegistry.getSingleMetric('cloud_provider_webhook_request_total')?.get();
  return m?.values.find((v) => v.labels.webhook === webhook && v.labels.code === code)?.value ?? 0;
}

describe('serveAdmissionReview (upstream `k8s.io/cloud-provider app/webhooks.go`)', () => {
  it('answers an AdmissionReview with the request UID and counts no success', async () => {
    const r = await serveAdmissionReview(
      'allow-ok',
      allow,
      'application/json',
      review({ uid: 'u-1', operation: 'CREATE' }),
    );
    expect(r.status).toBe(200);
    expect(r.contentType).toBe('application/json');
    expect(JSON.parse(r.body)).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'u-1', allowed: true, warnings: ['saw CREATE'] },
    });
    expect(await failures('allow-ok', '200')).toBe(0);
  });

  it.each([
    ['text/json', review({ uid: 'x' }), 400, 'Content-Type: "text/json" should be "application/json"'],
    [undefined, review({ uid: 'x' }), 400, 'Content-Type: "" should be "application/json"'],
    ['application/json', '', 400, 'admission request HTTP body is empty'],
    ['application/json', '{not json', 400, 'could not deserialize incoming admission review:'],
    ['application/json', review(undefined), 400, "admission review can't be used: Request field is nil"],
  ])('content type %j, body %j: %d %s', async (ct, body, status, message) => {
    const r = await serveAdmissionReview('bad-input', allow, ct, body);
    expect(r.status).toBe(status);
    expect(r.body.startsWith(message)).toBe(true);
  });

  it('a throwing handler is a 500 naming the error; no response is a 500; failures are counted', async () => {
    const before = await failures('broken', '500');
    const throwing: WebhookConfig = {
      path: '/x',
      admissionHandler: () => {
        throw new Error('boom');
      },
    };
    const empty: WebhookConfig = { path: '/y', admissionHandler: () => undefined };
    const a = await serveAdmissionReview('broken', throwing, 'application/json', review({ uid: '1' }));
    expect([a.status, a.body]).toEqual([500, 'error generating admission response: boom']);
    const b = await serveAdmissionReview('broken', empty, 'application/json', review({ uid: '2' }));
    expect([b.status, b.body]).toEqual([500, 'admission response cannot be nil']);
    expect(await failures('broken', '500')).toBe(before + 2);
  });
});

describe('enabledWebhooks', () => {
  const log = createLogger('test');
  it('enables nothing by default, everything with *, and honours -name', () => {
    const all = { a: allow, b: allow };
    expect(Object.keys(enabledWebhooks(all, [], log))).toEqual([]);
    expect(Object.keys(enabledWebhooks(all, ['*'], log))).toEqual(['a', 'b']);
    expect(Object.keys(enabledWebhooks(all, ['*', '-a'], log))).toEqual(['b']);
    expect(Object.keys(enabledWebhooks(all, ['a'], log))).toEqual(['a']);
  });
});
