import { request } from 'node:https';
import { metricsRegistry } from '@ccm-kit/runtime';
import { FakeCloud } from '@ccm-kit/testing';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@ccm-kit/runtime';
import {
  enabledWebhooks,
  serveAdmissionReview,
  startCloudControllerManager,
  type WebhookConfig,
} from '../src/index.js';
import { freePort, webhookOnlyArgs } from './ccm-harness.js';
import { startFakeApiServer } from './fake-apiserver.js';

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

/** One HTTPS request to the webhook port, as the API server sends it (optionally with a bearer token). */
function call(port: number, method: string, path: string, token?: string, body = '') {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    const req = request({ host: '127.0.0.1', port, path, method, headers, rejectUnauthorized: false }, (res) => {
      let b = '';
      res.on('data', (d) => (b += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the webhook server (upstream app/webhooks.go has no authentication filter)', () => {
  it('serves a request carrying a bearer token, and answers 404 for an unknown path', async () => {
    const api = await startFakeApiServer();
    const port = await freePort();
    const ccm = await startCloudControllerManager({
      argv: [...webhookOnlyArgs(port)],
      cloud: new FakeCloud(),
      kubeConfig: api.kubeConfig,
      webhooks: { allow },
    });
    try {
      // What a kube-apiserver sends when its admission kubeconfig holds a token.
      const served = await call(port, 'POST', '/allow', 'a-token', review({ uid: 'u1', operation: 'CREATE' }));
      expect(served.status).toBe(200);
      expect(JSON.parse(served.body).response).toMatchObject({ uid: 'u1', allowed: true });
      expect(await call(port, 'POST', '/nope', 'a-token')).toEqual({ status: 404, body: '404 page not found\n' });
      expect(await call(port, 'GET', '/nope')).toEqual({ status: 404, body: '404 page not found\n' });
    } finally {
      await ccm.stop();
      await api.close();
    }
  });
});
