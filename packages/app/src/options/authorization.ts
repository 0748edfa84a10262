/**
 * Delegated authorization of the secure port, as k8s.io/apiserver `options.DelegatingAuthorizationOptions`
 * (flags and defaults); `serving/delegated-auth-config.ts` applies them at start-up.
 */
import { list, num, type OptionGroup, str } from './option-group.js';

/** Delegated authorization settings. Durations in ms. */
export interface AuthorizationConfig {
  /**
   * `--authorization-kubeconfig`: kubeconfig for SubjectAccessReviews; empty forbids every request not in
   * `authorizationAlwaysAllowPaths`.
   */
  authorizationKubeconfig: string;
  /**
   * `--authorization-always-allow-paths`: paths served without authorization (upstream default `/healthz`, `/readyz`,
   * `/livez`).
   */
  authorizationAlwaysAllowPaths: string[];
  /** `--authorization-webhook-cache-authorized-ttl`, in milliseconds. */
  authorizedTtlMs: number;
  /** `--authorization-webhook-cache-unauthorized-ttl`, in milliseconds. */
  unauthorizedTtlMs: number;
}

export const authorizationOptions: OptionGroup<AuthorizationConfig> = {
  addFlags(fss) {
    fss
      .flagSet('authorization')
      .string(
        'authorization-kubeconfig',
        '',
        "kubeconfig file pointing at the 'core' kubernetes server with enough rights to create subjectaccessreviews.authorization.k8s.io. This is optional. If empty, all requests not skipped by authorization are forbidden.",
      )
      .duration(
        'authorization-webhook-cache-authorized-ttl',
        10_000,
        "The duration to cache 'authorized' responses from the webhook authorizer.",
      )
      .duration(
        'authorization-webhook-cache-unauthorized-ttl',
        10_000,
        "The duration to cache 'unauthorized' responses from the webhook authorizer.",
      )
      .stringSlice(
        'authorization-always-allow-paths',
        ['/healthz', '/readyz', '/livez'],
        "A list of HTTP paths to skip during authorization, i.e. these are authorized without contacting the 'core' kubernetes server.",
      );
  },
  validate: () => [],
  applyTo: (v) => ({
    authorizationKubeconfig: str(v, 'authorization-kubeconfig'),
    authorizationAlwaysAllowPaths: list(v, 'authorization-always-allow-paths'),
    authorizedTtlMs: num(v, 'authorization-webhook-cache-authorized-ttl'),
    unauthorizedTtlMs: num(v, 'authorization-webhook-cache-unauthorized-ttl'),
  }),
};
