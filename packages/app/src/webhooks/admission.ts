/**
 * The cloud-provider webhook hook (upstream `k8s.io/cloud-provider/app` `WebhookConfig`, `WebhookHandler.ServeHTTP`,
 * Upstream `k8s.io/cloud-provider app/webhooks.go`): a vendor registers admission handlers by name and path; each request is an
 * `admission.k8s.io/v1` AdmissionReview and is answered with one, with upstream's status codes and messages.
 */
import { Counter, Histogram } from 'prom-client';
import { metricsRegistry } from '@ccm-kit/runtime';

/** The `request` of an `admission.k8s.io/v1` AdmissionReview (the fields a handler usually reads). */
export interface AdmissionRequest {
  /** The request's UID; the answer must carry it (filled in when the handler leaves it out). */
  uid: string;
  /** The object's kind (group, version, kind). */
  kind?: { group: string; version: string; kind: string };
  /**
   * The resource requested (group, version, resource), for example `{ group: '', version: 'v1', resource: 'services'
   * }`.
   */
  resource?: { group: string; version: string; resource: string };
  /** The object's name (may be empty on CREATE with `generateName`). */
  name?: string;
  /** The object's namespace; absent for cluster-scoped objects. */
  namespace?: string;
  /** The operation being admitted. */
  operation?: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT' | string;
  /** Who makes the request. */
  userInfo?: { username?: string; uid?: string; groups?: string[] };
  /** The object as it would be stored (absent on DELETE), as JSON. */
  object?: unknown;
  /** The stored object before an UPDATE or DELETE, as JSON. */
  oldObject?: unknown;
  /** True when the request will not be persisted: the handler must have no side effects. */
  dryRun?: boolean;
  /** The other fields of the review's `request`, unchanged. */
  [key: string]: unknown;
}

/** The `response` of an AdmissionReview; `uid` is filled from the request. */
export interface AdmissionResponse {
  /** The request's UID; filled in from the request when absent. */
  uid?: string;
  /** Whether the request is admitted. */
  allowed: boolean;
  /** Why it is refused: `message` is what the user sees, `code` the HTTP status the API server reports. */
  status?: { code?: number; message?: string; reason?: string };
  /** Base64 of a JSON Patch, with `patchType: 'JSONPatch'`. */
  patch?: string;
  /** `JSONPatch` whenever `patch` is set. */
  patchType?: 'JSONPatch';
  /** Warnings returned to the client (kubectl prints them). */
  warnings?: string[];
  /** Annotations added to the audit event of this request. */
  auditAnnotations?: Record<string, string>;
}

/** A vendor webhook: upstream `WebhookConfig{Path, AdmissionHandler}`. */
export interface WebhookConfig {
  /** URL path it is served on, for example `/validate-services`. */
  path: string;
  /**
   * Decides on one request. Throwing answers 500 `error generating admission response: <message>`;
   * returning nothing answers 500 `admission response cannot be nil`.
   */
  admissionHandler(request: AdmissionRequest): Promise<AdmissionResponse | undefined> | AdmissionResponse | undefined;
}

/** An HTTP answer. */
export interface WebhookHttpResponse {
  /** The HTTP status code. */
  status: number;
  /** The response body (an AdmissionReview as JSON, or an error text). */
  body: string;
  /** The `Content-Type` header value. */
  contentType: string;
}

let metrics: { total: Counter<'code' | 'webhook'>; duration: Histogram<'code' | 'webhook'> } | undefined;
function webhookMetrics() {
  metrics ??= {
    total: new Counter({
      name: 'cloud_provider_webhook_request_total',
      help: 'Number of HTTP requests partitioned by status code and webhook name.',
      labelNames: ['code', 'webhook'],
      registers: [metricsRegistry],
    }),
    duration: new Histogram({
      name: 'cloud_provider_webhook_request_duration_seconds',
      help: 'Response latency distribution in seconds for each webhook.',
      labelNames: ['code', 'webhook'],
      registers: [metricsRegistry],
    }),
  };
  return metrics;
}

const text = (status: number, body: string): WebhookHttpResponse => ({
  status,
  body,
  contentType: 'text/plain; charset=utf-8',
});

/**
 * Serves one admission request for the webhook `name` (upstream `WebhookHandler.ServeHTTP`):
 * 400 unless the Content-Type is exactly `application/json`, for an empty body, an undecodable review or a
 * missing `request`; 500 when the handler throws or returns nothing; 200 with the AdmissionReview otherwise
 * (`response.uid` set to the request's UID). As upstream, only failures are counted in
 * `cloud_provider_webhook_request_total` / `_duration_seconds`.
 */
export async function serveAdmissionReview(
  name: string,
  config: WebhookConfig,
  contentType: string | undefined,
  body: string,
): Promise<WebhookHttpResponse> {
  const start = performance.now();
  const fail = (status: number, message: string) => {
    const m = webhookMetrics();
    const labels = { code: String(status), webhook: name };
    m.total.inc(labels);
    m.duration.observe(labels, (performance.now() - start) / 1000);
    return text(status, message);
  };
  if (contentType !== 'application/json') {
    return fail(400, `Content-Type: ${JSON.stringify(contentType ?? '')} should be "application/json"`);
  }
  if (body.length === 0) return fail(400, 'admission request HTTP body is empty');
  let review: { request?: AdmissionRequest };
  try {
    review = JSON.parse(body) as { request?: AdmissionRequest };
    if (typeof review !== 'object' || review === null) throw new Error('not an object');
  } catch (err) {
    return fail(400, `could not deserialize incoming admission review: ${(err as Error).message}`);
  }
  if (!review.request) return fail(400, "admission review can't be used: Request field is nil");
  let response: AdmissionResponse | undefined;
  try {
    response = await config.admissionHandler(review.request);
  } catch (err) {
    return fail(500, `error generating admission response: ${(err as Error).message}`);
  }
  if (!response) return fail(500, 'admission response cannot be nil');
  return {
    status: 200,
    contentType: 'application/json',
    body: JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { ...response, uid: review.request.uid },
    }),
  };
}
