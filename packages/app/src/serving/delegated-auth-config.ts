/**
 * Building {@link DelegatedAuth} from the authentication/authorization flags, as k8s.io/apiserver's
 * `DelegatingAuthenticationOptions.ApplyTo` / `DelegatingAuthorizationOptions.ApplyTo`:
 * - TokenReview and SubjectAccessReview go through `--authentication-kubeconfig` / `--authorization-kubeconfig`,
 *   or the manager's own connection when they are empty (the in-cluster case);
 * - the client CA comes from `--client-ca-file`, else (unless `--authentication-skip-lookup`) from the
 *   `client-ca-file` key of ConfigMap `kube-system/extension-apiserver-authentication`; a failed lookup is fatal
 *   unless `--authentication-tolerate-lookup-failure`.
 */
import { readFile } from 'node:fs/promises';
import { type Logger } from '@ccm-kit/runtime';
import { type KubeConfigLike, loadKubeConfig } from '@ccm-kit/runtime/client';
import { asClientNodeKubeConfig, loadClientNode } from '@ccm-kit/runtime/internal';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { StartupError } from '../errors.js';
import type { AuthConfig } from '../options/config.js';
import { DelegatedAuth } from './delegated-auth.js';

/** The ConfigMap the API server publishes its client CA in. */
export const AUTHENTICATION_CONFIGMAP = {
  namespace: 'kube-system',
  name: 'extension-apiserver-authentication',
};

/**
 * @returns the authenticator/authorizer and the client CA bundle (PEM) for the TLS server, if any.
 * @throws StartupError when `--client-ca-file` cannot be read, or the ConfigMap lookup fails without
 *   `--authentication-tolerate-lookup-failure`.
 */
export async function delegatedAuthFromConfig(
  auth: AuthConfig,
  kubeConfigLike: KubeConfigLike,
  logger: Logger,
): Promise<{ auth: DelegatedAuth; clientCaPem?: string }> {
  await loadClientNode(); // in a bundled binary, the KubeConfig and review APIs come from here (decision 0413)
  const kubeConfig: KubeConfig = asClientNodeKubeConfig(kubeConfigLike);
  const authnKc = auth.authenticationKubeconfig
    ? asClientNodeKubeConfig(loadKubeConfig({ kubeconfig: auth.authenticationKubeconfig }))
    : kubeConfig;
  const authzKc = auth.authorizationKubeconfig
    ? asClientNodeKubeConfig(loadKubeConfig({ kubeconfig: auth.authorizationKubeconfig }))
    : kubeConfig;
  let clientCaPem: string | undefined;
  if (auth.clientCAFile) {
    try {
      clientCaPem = await readFile(auth.clientCAFile, 'utf8');
    } catch (err) {
      throw new StartupError(`--client-ca-file: cannot read ${auth.clientCAFile}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  } else if (!auth.authenticationSkipLookup) {
    try {
      const cm = await authnKc.makeApiClient(CoreV1Api).readNamespacedConfigMap(AUTHENTICATION_CONFIGMAP);
      clientCaPem = cm.data?.['client-ca-file'] || undefined;
      logger
        .v(1)
        .info(
          clientCaPem
            ? 'Client certificates are verified with the CA from the authentication ConfigMap'
            : 'The authentication ConfigMap has no client-ca-file; client certificates are not accepted',
        );
    } catch (err) {
      const msg =
        `unable to load the client CA from ConfigMap ${AUTHENTICATION_CONFIGMAP.namespace}/${AUTHENTICATION_CONFIGMAP.name}: ` +
        `${(err as Error).message}. Bind the Role extension-apiserver-authentication-reader (docs/deploy/rbac.yaml), ` +
        'or set --authentication-skip-lookup or --authentication-tolerate-lookup-failure';
      if (!auth.authenticationTolerateLookupFailure) throw new StartupError(msg, { cause: err });
      logger.warn(msg);
    }
  }
  return {
    auth: new DelegatedAuth({
      authenticationKubeConfig: authnKc,
      authorizationKubeConfig: authzKc,
      alwaysAllowPaths: auth.authorizationAlwaysAllowPaths,
      tokenCacheTtlMs: auth.tokenWebhookCacheTtlMs,
      authorizedTtlMs: auth.authorizedTtlMs,
      unauthorizedTtlMs: auth.unauthorizedTtlMs,
      clientCertAuth: clientCaPem !== undefined,
    }),
    clientCaPem,
  };
}
