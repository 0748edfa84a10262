/**
 * HTTPS serving of /healthz, /metrics and friends (`--bind-address`, `--secure-port`, `--cert-dir`, the TLS
 * flags). Flags follow k8s.io/apiserver `options.SecureServingOptions.AddFlags` (`--bind-address` is an IP flag
 * there: pflag rejects anything else at parsing); the webhook port reuses {@link servingConfig} with its
 * `--webhook-` flags (`webhook.ts`).
 */
import type { FlagSet } from '../flags/flag-set.js';
import { list, type FlagValues, num, type OptionGroup, portValidator, str } from './option-group.js';
import {
  type NamedCertKey,
  nodeCipherList,
  nodeCurveList,
  parseNamedCertKey,
  validateTlsMinVersion,
} from './tls-options.js';

/**
 * HTTPS serving settings (`--bind-address`, `--secure-port`, TLS flags; the webhook port has the same set with
 * `--webhook-` names). `securePort` 0 turns serving off.
 */
export interface SecureServingConfig {
  /** `--bind-address`: the IP address the secure port listens on. */
  bindAddress: string;
  /** `--secure-port`: the HTTPS port; 0 serves nothing. */
  securePort: number;
  /** `--cert-dir`: where the self-signed pair is read from, or generated, when no `tlsCertFile` is given. */
  certDir: string;
  /** Name of the generated pair in `certDir`: `cloud-controller-manager` or `cloud-controller-manager-webhook`. */
  pairName: string;
  /** `--tls-cert-file`: PEM certificate (chain) to serve; empty generates a self-signed pair in `certDir`. */
  tlsCertFile: string;
  /** `--tls-private-key-file`: PEM key of `tlsCertFile`. */
  tlsPrivateKeyFile: string;
  /** As given (Go names); see `nodeCipherList`. */
  tlsCipherSuites: string[];
  /** Go CurveIDs as given; see `nodeCurveList`. */
  tlsCurvePreferences: string[];
  /** `--tls-min-version`: a Go name (`VersionTLS12`, `VersionTLS13`), validated; empty is Node's default (TLS 1.2). */
  tlsMinVersion: string;
  /** `--tls-sni-cert-key`: extra pairs served by SNI name. */
  tlsSniCertKeys: NamedCertKey[];
  /** `--permit-port-sharing` (SO_REUSEPORT); not on the webhook port. */
  permitPortSharing: boolean;
}

/**
 * Go's TLS cipher suite names as k8s.io/component-base `cliflag.PreferredTLSCipherNames()` and
 * `InsecureTLSCipherNames()` list them in the help (Go 1.26); `nodeCipherList` maps them to OpenSSL's.
 */
const PREFERRED_CIPHERS =
  'TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256, TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305, TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA, TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305, TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256';
const INSECURE_CIPHERS =
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, TLS_ECDHE_ECDSA_WITH_RC4_128_SHA, TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA, TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256, TLS_ECDHE_RSA_WITH_RC4_128_SHA, TLS_RSA_WITH_3DES_EDE_CBC_SHA, TLS_RSA_WITH_AES_128_CBC_SHA, TLS_RSA_WITH_AES_128_CBC_SHA256, TLS_RSA_WITH_AES_128_GCM_SHA256, TLS_RSA_WITH_AES_256_CBC_SHA, TLS_RSA_WITH_AES_256_GCM_SHA384, TLS_RSA_WITH_RC4_128_SHA';

/**
 * The TLS value flags both ports have, with `prefix` (`''` or `'webhook-'`) and each port's wording, as
 * k8s.io/apiserver `SecureServingOptions.AddFlags` and k8s.io/cloud-provider `WebhookServingOptions.AddFlags`
 * word them: `server` is `the server` or `the webhook server`, `sniClient` `the apiserver` or `the webhook server`.
 */
export function addTlsFlags(
  set: FlagSet,
  prefix: '' | 'webhook-',
  text: { server: string; sniClient: string; minVersionSuffix: string },
): FlagSet {
  const certDir = prefix === '' ? '--cert-dir' : '--webhook-cert-dir';
  return set
    .string(
      `${prefix}tls-cert-file`,
      '',
      `File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after server cert). If HTTPS serving is enabled, and --${prefix}tls-cert-file and --${prefix}tls-private-key-file are not provided, a self-signed certificate and key are generated for the public address and saved to the directory specified by ${certDir}.`,
    )
    .string(
      `${prefix}tls-private-key-file`,
      '',
      `File containing the default x509 private key matching --${prefix}tls-cert-file.`,
    )
    .stringSlice(
      `${prefix}tls-cipher-suites`,
      [],
      `Comma-separated list of cipher suites for ${text.server}. If omitted, the default Go cipher suites will be used. \n` +
        `Preferred values: ${PREFERRED_CIPHERS}. \nInsecure values: ${INSECURE_CIPHERS}.`,
    )
    .stringSlice(
      `${prefix}tls-curve-preferences`,
      [],
      `Comma-separated list of numeric Go crypto/tls CurveID values, as the allowed key exchange mechanisms for ${text.server}. The supported values depend on the Go version used. See https://pkg.go.dev/crypto/tls#CurveID for values supported for each Go version. The order of the list is ignored, and key exchange mechanisms are chosen by Go from this list using an internal preference order. If omitted, the default Go curves will be used.`,
      { typeName: 'int32Slice', defaultText: '[]' },
    )
    .string(
      `${prefix}tls-min-version`,
      '',
      `Minimum TLS version supported${text.minVersionSuffix}. Possible values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13`,
      { validate: validateTlsMinVersion },
    )
    .stringArray(
      `${prefix}tls-sni-cert-key`,
      [],
      `A pair of x509 certificate and private key file paths, optionally suffixed with a list of domain patterns which are fully qualified domain names, possibly with prefixed wildcard segments. The domain patterns also allow IP addresses, but IPs should only be used if ${text.sniClient} has visibility to the IP address requested by a client. If no domain patterns are provided, the names of the certificate are extracted. Non-wildcard matches trump over wildcard matches, explicit domain patterns trump over extracted names. For multiple key/certificate pairs, use the --${prefix}tls-sni-cert-key multiple times. Examples: "example.crt,example.key" or "foo.crt,foo.key:*.foo.com,foo.com".`,
      { validate: (v) => void v.map(parseNamedCertKey), typeName: 'namedCertKey', defaultText: '[]' },
    );
}

/** Problems of the serving flags with `prefix`, by flag name. */
export function validateServing(v: FlagValues, prefix: '' | 'webhook-'): string[] {
  const problems: string[] = [];
  if ((str(v, `${prefix}tls-cert-file`) === '') !== (str(v, `${prefix}tls-private-key-file`) === '')) {
    problems.push(`--${prefix}tls-cert-file and --${prefix}tls-private-key-file must be given together`);
  }
  for (const check of [
    () => nodeCipherList(list(v, `${prefix}tls-cipher-suites`), `--${prefix}tls-cipher-suites`),
    () => nodeCurveList(list(v, `${prefix}tls-curve-preferences`), `--${prefix}tls-curve-preferences`),
  ]) {
    try {
      check();
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  return problems;
}

/** The serving settings of the flags with `prefix`. */
export function servingConfig(v: FlagValues, prefix: '' | 'webhook-', pairName: string): SecureServingConfig {
  const s = (k: string) => str(v, `${prefix}${k}`);
  const l = (k: string) => list(v, `${prefix}${k}`);
  return {
    bindAddress: s('bind-address'),
    securePort: num(v, `${prefix}secure-port`),
    certDir: s('cert-dir'),
    pairName,
    tlsCertFile: s('tls-cert-file'),
    tlsPrivateKeyFile: s('tls-private-key-file'),
    tlsCipherSuites: [...l('tls-cipher-suites')],
    tlsCurvePreferences: [...l('tls-curve-preferences')],
    tlsMinVersion: s('tls-min-version'),
    // Validated when parsed.
    tlsSniCertKeys: l('tls-sni-cert-key').map(parseNamedCertKey),
    permitPortSharing: prefix === '' && v['permit-port-sharing'] === true,
  };
}

export const secureServingOptions: OptionGroup<SecureServingConfig> = {
  addFlags(fss) {
    const set = fss
      .flagSet('secure serving')
      .ip(
        'bind-address',
        '0.0.0.0',
        'The IP address on which to listen for the --secure-port port. The associated interface(s) must be reachable by the rest of the cluster, and by CLI/web clients. If blank or an unspecified address (0.0.0.0 or ::), all interfaces and IP address families will be used.',
      )
      .int(
        'secure-port',
        10258,
        "The port on which to serve HTTPS with authentication and authorization. If 0, don't serve HTTPS at all.",
        { validate: portValidator('--secure-port') },
      )
      .string(
        'cert-dir',
        '',
        'The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored.',
      );
    addTlsFlags(set, '', { server: 'the server', sniClient: 'the apiserver', minVersionSuffix: '' })
      .int(
        'http2-max-streams-per-connection',
        0,
        "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang's default.",
      )
      // Node's https server on the secure port speaks HTTP/1.1 only (docs/decisions/0009), so HTTP/2 is off
      // whatever this flag says; it is accepted so that manifests written for the Go binary start unchanged.
      .bool('disable-http2-serving', false, 'If true, HTTP2 serving will be disabled [default=false]')
      .bool(
        'permit-port-sharing',
        false,
        'If true, SO_REUSEPORT will be used when binding the port, which allows more than one instance to bind on the same address and port. [default=false]',
      )
      .bool(
        'permit-address-sharing',
        false,
        'If true, SO_REUSEADDR will be used when binding the port. This allows binding to wildcard IPs like 0.0.0.0 and specific IPs in parallel, and it avoids waiting for the kernel to release sockets in TIME_WAIT state. [default=false]',
      );
  },
  validate: (v) => validateServing(v, ''),
  applyTo: (v) => servingConfig(v, '', 'cloud-controller-manager'),
};
