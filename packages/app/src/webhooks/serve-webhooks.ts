/**
 * The webhook server (upstream `k8s.io/cloud-provider app/controllermanager.go Run`; upstream `k8s.io/cloud-provider app/webhooks.go`): started only when the feature gate
 * `CloudControllerManagerWebhook` is on, `--webhook-secure-port` is not 0, and at least one registered webhook
 * is enabled by `--webhooks` (which, unlike `--controllers`, enables nothing by default). It serves each enabled
 * webhook's path over HTTPS, on every replica (webhooks do not need the lease).
 */
import type { IncomingMessage } from 'node:http';
import type { Logger } from '@ccm-kit/runtime';
import type { CloudControllerManagerConfig } from '../options/config.js';
import { enabledWebhooks } from './enabled-webhooks.js';
import { type RouteHandler, type RunningServer, startSecureServer } from '../serving/secure-server.js';
import { servingTlsOptions } from '../serving/serving-options.js';
import { serveAdmissionReview, type WebhookConfig } from './admission.js';

/** Most bytes read from one admission request (the API server's own limit is 3 MiB). */
const MAX_BODY_BYTES = 3 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`admission request body exceeds ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts the webhook server when the conditions above hold; otherwise resolves `undefined`.
 * @throws the listen error, or a certificate error naming the flag.
 */
export async function serveWebhooks(
  config: CloudControllerManagerConfig,
  webhooks: Readonly<Record<string, WebhookConfig>>,
  logger: Logger,
): Promise<RunningServer | undefined> {
  if (!config.controllerConfig.featureGates.CloudControllerManagerWebhook) return undefined;
  const serving = config.webhookServing;
  if (!serving) return undefined;
  const enabled = enabledWebhooks(webhooks, config.webhooks, logger);
  if (Object.keys(enabled).length === 0) return undefined;
  const routes: Record<string, RouteHandler> = {};
  for (const [name, webhook] of Object.entries(enabled)) {
    routes[webhook.path] = async (req) => {
      const r = await serveAdmissionReview(name, webhook, req.headers['content-type'], await readBody(req));
      return { status: r.status, body: r.body, contentType: r.contentType };
    };
  }
  return startSecureServer({
    ...(await servingTlsOptions(serving, 'webhook-')),
    // No authentication or authorization, as upstream's webhook mux: the API server calls it over TLS with
    // whatever credentials its admission kubeconfig holds (a bearer token is common), and an unknown path is 404.
    routes,
    logger: logger.with({}, 'webhooks'),
  });
}
