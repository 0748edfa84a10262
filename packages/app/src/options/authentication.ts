/**
 * Delegated authentication of the secure port, as k8s.io/apiserver `options.DelegatingAuthenticationOptions`
 * (flags and defaults); `serving/delegated-auth-config.ts` applies them at start-up.
 */
import { bool, list, num, type OptionGroup, str } from './option-group.js';

/** Delegated authentication settings. Durations in ms. */
export interface AuthenticationConfig {
  /**
   * `--authentication-kubeconfig`: kubeconfig for TokenReviews and the client-CA lookup; empty treats every token as
   * anonymous.
   */
  authenticationKubeconfig: string;
  /** `--authentication-skip-lookup`: do not read `extension-apiserver-authentication` from the cluster. */
  authenticationSkipLookup: boolean;
  /** `--authentication-tolerate-lookup-failure`: start even when that lookup fails. */
  authenticationTolerateLookupFailure: boolean;
  /** `--authentication-token-webhook-cache-ttl`, in milliseconds: how long TokenReview answers are cached. */
  tokenWebhookCacheTtlMs: number;
  /** `--client-ca-file`: CA bundle that authenticates client certificates. */
  clientCAFile: string;
  /** `--requestheader-client-ca-file`: CA bundle of the front proxy whose request headers are trusted. */
  requestheaderClientCAFile: string;
  /**
   * `--requestheader-allowed-names`: common names of the front proxy's certificate; empty allows any name the CA
   * signed.
   */
  requestheaderAllowedNames: string[];
  /** `--requestheader-username-headers` (default `x-remote-user`). */
  requestheaderUsernameHeaders: string[];
  /** `--requestheader-group-headers` (default `x-remote-group`). */
  requestheaderGroupHeaders: string[];
  /** `--requestheader-extra-headers-prefix` (default `x-remote-extra-`). */
  requestheaderExtraHeadersPrefix: string[];
}

export const authenticationOptions: OptionGroup<AuthenticationConfig> = {
  addFlags(fss) {
    fss
      .flagSet('authentication')
      .string(
        'authentication-kubeconfig',
        '',
        "kubeconfig file pointing at the 'core' kubernetes server with enough rights to create tokenreviews.authentication.k8s.io. This is optional. If empty, all token requests are considered to be anonymous and no client CA is looked up in the cluster.",
      )
      .bool(
        'authentication-skip-lookup',
        false,
        'If false, the authentication-kubeconfig will be used to lookup missing authentication configuration from the cluster.',
      )
      .duration(
        'authentication-token-webhook-cache-ttl',
        10_000,
        'The duration to cache responses from the webhook token authenticator.',
      )
      .bool(
        'authentication-tolerate-lookup-failure',
        false,
        'If true, failures to look up missing authentication configuration from the cluster are not considered fatal. Note that this can result in authentication that treats all requests as anonymous.',
      )
      .string(
        'client-ca-file',
        '',
        'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.',
      )
      .string(
        'requestheader-client-ca-file',
        '',
        'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.',
      )
      .stringSlice(
        'requestheader-allowed-names',
        [],
        'List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.',
      )
      .stringSlice(
        'requestheader-username-headers',
        ['x-remote-user'],
        'List of request headers to inspect for usernames. X-Remote-User is common.',
      )
      .stringSlice(
        'requestheader-uid-headers',
        [],
        'List of request headers to inspect for UIDs. X-Remote-Uid is suggested. Requires the RemoteRequestHeaderUID feature to be enabled.',
      )
      .stringSlice(
        'requestheader-group-headers',
        ['x-remote-group'],
        'List of request headers to inspect for groups. X-Remote-Group is suggested.',
      )
      .stringSlice(
        'requestheader-extra-headers-prefix',
        ['x-remote-extra-'],
        'List of request header prefixes to inspect. X-Remote-Extra- is suggested.',
      );
  },
  validate: () => [],
  applyTo: (v) => ({
    authenticationKubeconfig: str(v, 'authentication-kubeconfig'),
    authenticationSkipLookup: bool(v, 'authentication-skip-lookup'),
    authenticationTolerateLookupFailure: bool(v, 'authentication-tolerate-lookup-failure'),
    tokenWebhookCacheTtlMs: num(v, 'authentication-token-webhook-cache-ttl'),
    clientCAFile: str(v, 'client-ca-file'),
    requestheaderClientCAFile: str(v, 'requestheader-client-ca-file'),
    requestheaderAllowedNames: list(v, 'requestheader-allowed-names'),
    requestheaderUsernameHeaders: list(v, 'requestheader-username-headers'),
    requestheaderGroupHeaders: list(v, 'requestheader-group-headers'),
    requestheaderExtraHeadersPrefix: list(v, 'requestheader-extra-headers-prefix'),
  }),
};
