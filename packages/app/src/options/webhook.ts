/**
 * `--webhooks` and the webhook port's serving flags, as k8s.io/cloud-provider `options/webhook.go`
 * (`WebhookOptions`, `WebhookServingOptions`; `--webhook-bind-address` is an IP flag there).
 */
import { validateControllerList } from './controller-selection.js';
import { list, num, type OptionGroup, portValidator } from './option-group.js';
import { addTlsFlags, type SecureServingConfig, servingConfig, validateServing } from './secure-serving.js';

/** What the group yields. */
export interface WebhookOptionsConfig {
  /** `--webhooks`, as given (`-name` entries kept). */
  webhooks: string[];
  /**
   * Webhook serving; as upstream, present only when `--webhook-secure-port` > 0 **and** `--webhooks` is not
   * empty (the server itself also needs the `CloudControllerManagerWebhook` gate and an enabled webhook).
   */
  webhookServing: SecureServingConfig | undefined;
}

export const webhookOptions: OptionGroup<WebhookOptionsConfig> = {
  addFlags(fss, known) {
    fss
      .flagSet('webhook')
      .stringSlice(
        'webhooks',
        [],
        "A list of webhooks to enable. '*' enables all on-by-default webhooks, 'foo' enables the webhook named 'foo', '-foo' disables the webhook named 'foo'." +
          `\nAll webhooks: ${known.webhooks.join(', ')}` +
          `\nDisabled-by-default webhooks: `,
      );
    const set = fss
      .flagSet('webhook serving')
      .ip(
        'webhook-bind-address',
        '0.0.0.0',
        'The IP address on which to listen for the --webhook-secure-port port. The associated interface(s) must be reachable by the rest of the cluster, and by CLI/web clients. If set to an unspecified address (0.0.0.0 or ::), all interfaces will be used. If unset, defaults to 0.0.0.0.',
      )
      .int(
        'webhook-secure-port',
        10260,
        "Secure port to serve cloud provider webhooks. If 0, don't serve webhooks at all.",
        {
          validate: portValidator('--webhook-secure-port'),
        },
      )
      .string(
        'webhook-cert-dir',
        '',
        'The directory where the TLS certs are located. If --webhook-tls-cert-file and --webhook-tls-private-key-file are provided, this flag will be ignored.',
      );
    addTlsFlags(set, 'webhook-', {
      server: 'the webhook server',
      sniClient: 'the webhook server',
      minVersionSuffix: ' for the webhook server',
    })
      // The webhook port speaks HTTP/1.1 only (docs/decisions/0009); accepted for manifests written for Go.
      .bool(
        'webhook-disable-http2-serving',
        false,
        'If true, HTTP2 serving will be disabled for the webhook server [default=false]',
      );
  },
  validate(v, known) {
    const problems = validateControllerList(list(v, 'webhooks'), known.webhooks, {}, 'webhooks');
    const port = num(v, 'webhook-secure-port');
    if (port !== 0 && port === num(v, 'secure-port')) {
      problems.push('--webhook-secure-port cannot be the same value as --secure-port');
    }
    return [...problems, ...validateServing(v, 'webhook-')];
  },
  applyTo(v) {
    const webhooks = [...list(v, 'webhooks')];
    const serve = num(v, 'webhook-secure-port') > 0 && webhooks.length > 0;
    return {
      webhooks,
      webhookServing: serve ? servingConfig(v, 'webhook-', 'cloud-controller-manager-webhook') : undefined,
    };
  },
};
