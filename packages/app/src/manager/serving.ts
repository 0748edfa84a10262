/**
 * Serving, on every replica and before leader election (so that standby replicas answer /healthz and
 * /metrics, as upstream's `app.Run` starts `SecureServing` before `leaderElectAndRun`): the secure port
 * (health, metrics, configz, debug flags behind delegated authentication and authorization) and the webhook
 * port. New serving features (extra routes, features loaded only when their flags ask for them) belong here.
 */
import type { Logger } from '@ccm-kit/runtime';
import type { KubeConfigLike } from '@ccm-kit/runtime/client';
import type { HealthChecks } from '@ccm-kit/runtime/health';
import { StartupError } from '../errors.js';
import type { CloudControllerManagerConfig } from '../options/config.js';
import { serviceRoutes } from '../serving/routes.js';
import { type RunningServer, startSecureServer } from '../serving/secure-server.js';
import { servingTlsOptions } from '../serving/serving-options.js';
import type { WebhookConfig } from '../webhooks/admission.js';
import { serveWebhooks } from '../webhooks/serve-webhooks.js';

/** The running servers. */
export interface Serving {
  /** The bound secure port, or undefined when `--secure-port=0`. */
  readonly securePort: number | undefined;
  /** The bound webhook port, or undefined when webhooks are not served. */
  readonly webhookPort: number | undefined;
  /** Closes both servers. */
  close(): Promise<void>;
}

/** What {@link startServing} needs. */
export interface ServingOptions {
  config: CloudControllerManagerConfig;
  kubeConfig: KubeConfigLike;
  health: HealthChecks;
  webhooks: Readonly<Record<string, WebhookConfig>>;
  logger: Logger;
}

/**
 * Starts the webhook server (when enabled) and the secure server (unless `--secure-port=0`).
 * @throws StartupError (`secure serving: …` unless already one naming its flag) after closing whatever started.
 */
export async function startServing(o: ServingOptions): Promise<Serving> {
  let webhookServer: RunningServer | undefined;
  let server: RunningServer | undefined;
  const close = async () => {
    await server?.close();
    await webhookServer?.close();
  };
  try {
    webhookServer = await serveWebhooks(o.config, o.webhooks, o.logger);
    server = await serveSecurely(o);
  } catch (err) {
    await close();
    throw err instanceof StartupError
      ? err
      : new StartupError(`secure serving: ${(err as Error).message}`, { cause: err });
  }
  return { securePort: server?.port, webhookPort: webhookServer?.port, close };
}

async function serveSecurely(o: ServingOptions): Promise<RunningServer | undefined> {
  const s = o.config.secureServing;
  if (s.securePort === 0) {
    o.logger.info('Secure serving is off (--secure-port=0)');
    return undefined;
  }
  const tls = await servingTlsOptions(s, '');
  // Loaded only when serving (it may load client-node's generated API): fewer modules on the start path.
  const { delegatedAuthFromConfig } = await import('../serving/delegated-auth-config.js');
  const { auth, clientCaPem } = await delegatedAuthFromConfig(o.config.auth, o.kubeConfig, o.logger);
  return startSecureServer({ ...tls, clientCaPem, auth, routes: serviceRoutes(o.health, o.config), logger: o.logger });
}
