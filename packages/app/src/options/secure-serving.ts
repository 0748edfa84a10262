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
  bindAddress: string;
  securePort: number;
  certDir: string;
  /** Name of the generated pair in `certDir`: `cloud-controller-manager` or `cloud-controller-manager-webhook`. */
  pairName: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  /** As given (Go names); see `nodeCipherList`. */
  tlsCipherSuites: string[];
  /** Go CurveIDs as given; see `nodeCurveList`. */
  tlsCurvePreferences: string[];
  tlsMinVersion: string;
  tlsSniCertKeys: NamedCertKey[];
  /** `--permit-port-sharing` (SO_REUSEPORT); not on the webhook port. */
  permitPortSharing: boolean;
}

/** The TLS value flags both ports have, with `prefix` (`''` or `'webhook-'`) and each port's wording. */
export function addTlsFlags(
  set: FlagSet,
  prefix: '' | 'webhook-',
  text: { certFile: string; keyFile: string },
): FlagSet {
  return set
    .string(`${prefix}tls-cert-file`, '', text.certFile)
    .string(`${prefix}tls-private-key-file`, '', text.keyFile)
    .stringSlice(
      `${prefix}tls-cipher-suites`,
      [],
      'Comma-separated list of cipher suites for the server. If omitted, the default cipher suites will be used. Go names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ...) as upstream; OpenSSL names are accepted too.',
    )
    .stringSlice(
      `${prefix}tls-curve-preferences`,
      [],
      'Comma-separated list of elliptic curve IDs (Go tls.CurveID values: 23 P-256, 24 P-384, 25 P-521, 29 X25519, 4588 X25519MLKEM768), in order of preference. If omitted, the default curves will be used.',
    )
    .string(
      `${prefix}tls-min-version`,
      '',
      'Minimum TLS version supported. Possible values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13',
      { validate: validateTlsMinVersion },
    )
    .stringArray(
      `${prefix}tls-sni-cert-key`,
      [],
      `A pair of x509 certificate and private key file paths, optionally suffixed with a list of domain patterns which are fully qualified domain names, possibly with prefixed wildcard segments. If no domain patterns are provided, the names of the certificate are extracted. Non-wildcard matches trump over wildcard matches, explicit domain patterns trump over extracted names. For multiple key/certificate pairs, use the --${prefix}tls-sni-cert-key multiple times. Examples: "example.crt,example.key" or "foo.crt,foo.key:*.foo.com,foo.com".`,
      { validate: (v) => void v.map(parseNamedCertKey) },
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
      .ip('bind-address', '0.0.0.0', 'The IP address on which to listen for the --secure-port port.')
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
    addTlsFlags(set, '', {
      certFile: 'File containing the default x509 Certificate for HTTPS.',
      keyFile: 'File containing the default x509 private key matching --tls-cert-file.',
    })
      .int(
        'http2-max-streams-per-connection',
        0,
        'The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection.',
      )
      .bool('permit-port-sharing', false, 'If true, SO_REUSEPORT will be used when binding the port.')
      .bool('permit-address-sharing', false, 'If true, SO_REUSEADDR will be used when binding the port.');
  },
  validate: (v) => validateServing(v, ''),
  applyTo: (v) => servingConfig(v, '', 'cloud-controller-manager'),
};
