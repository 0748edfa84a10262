/**
 * The manager's API clients (upstream `Config.Complete`: `Client`, `Kubeconfig`, the root and controller client
 * builders): the connection from `--kubeconfig`/`--master`/in-cluster (or the one given in code), one rate-limited
 * client factory with the manager's identity, and the builder controllers get their clients from — per-controller
 * service accounts with `--use-service-account-credentials`.
 */
import type { ControllerClientBuilder } from '@ccm-kit/cloud-provider';
import { type Logger } from '@ccm-kit/runtime';
import { type ClientFactory, createClientFactory, type KubeConfigLike, loadKubeConfig } from '@ccm-kit/runtime/client';
import { StartupError } from '../errors.js';
import type { CloudControllerManagerConfig } from '../options/config.js';
import { anonymousKubeConfig, ServiceAccountClientBuilder } from './service-account-clients.js';

/** The clients of one manager. */
export interface ManagerClients {
  readonly kubeConfig: KubeConfigLike;
  /** The manager's own identity: shared informers, leader election, events, the provider's `initialize`. */
  readonly root: ClientFactory;
  /** What controllers (and `initialize()`) build their clients from. */
  readonly controllers: ControllerClientBuilder;
  /** Every factory above (the root one, and the service accounts' with `--use-service-account-credentials`). */
  readonly factories: readonly ClientFactory[];
  /** Closes every connection. */
  close(): Promise<void>;
}

/**
 * @param userAgent the base User-Agent (`<command>/v<version> (<os>/<arch>) ccm-kit`).
 * @throws StartupError naming `--kubeconfig` when the kubeconfig cannot be loaded.
 */
export function managerClients(
  config: CloudControllerManagerConfig,
  given: KubeConfigLike | undefined,
  userAgent: string,
  logger: Logger,
): ManagerClients {
  let kubeConfig: KubeConfigLike;
  try {
    kubeConfig = given ?? loadKubeConfig({ kubeconfig: config.kubeconfig, master: config.master });
  } catch (err) {
    const msg = (err as Error).message;
    throw new StartupError(config.kubeconfig && !msg.startsWith('--') ? `--kubeconfig: ${msg}` : msg, { cause: err });
  }
  if (config.kubeApiContentType !== 'application/json') {
    logger.v(2).info('client-node speaks JSON only; --kube-api-content-type is ignored', {
      contentType: config.kubeApiContentType,
    });
  }
  const limits = { qps: config.kubeApiQps, burst: config.kubeApiBurst, userAgent };
  const root = createClientFactory({ kubeConfig, ...limits });
  // --use-service-account-credentials: controllers (and initialize()) act as their own service accounts; shared
  // informers, leader election and events keep the manager's identity, as upstream's root client builder.
  const anonymous = config.useServiceAccountCredentials
    ? createClientFactory({ kubeConfig: anonymousKubeConfig(kubeConfig), ...limits })
    : undefined;
  return {
    kubeConfig,
    root,
    controllers: anonymous ? new ServiceAccountClientBuilder({ root, anonymous, logger }) : root,
    factories: anonymous ? [root, anonymous] : [root],
    async close() {
      await root.close();
      await anonymous?.close();
    },
  };
}
