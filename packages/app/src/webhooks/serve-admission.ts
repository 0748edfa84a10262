/**
 * The package's `serveAdmissionReview`: its module (which registers the webhook metrics with prom-client) is
 * imported on the first call, not when `@ccm-kit/app` is imported (see `manager/start.ts`).
 */
import type { WebhookConfig, WebhookHttpResponse } from './admission.js';

/**
 * Serves one admission request for the webhook `name` (upstream `WebhookHandler.ServeHTTP`); see `admission.ts`.
 */
export async function serveAdmissionReview(
  name: string,
  config: WebhookConfig,
  contentType: string | undefined,
  body: string,
): Promise<WebhookHttpResponse> {
  const admission = await import('./admission.js');
  return admission.serveAdmissionReview(name, config, contentType, body);
}
