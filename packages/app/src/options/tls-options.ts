/**
 * The TLS flags of secure serving, with upstream's (Go) spellings turned into what Node.js' TLS needs.
 * Follows k8s.io/component-base `cli/flag` (`TLSCipherSuites`, `TLSVersion`, `NamedCertKey`) and Go's
 * `crypto/tls` (cipher suite and CurveID names) as k8s.io/apiserver `SecureServingOptions` uses them.
 */

/** Go `crypto/tls` cipher suite names (TLS 1.0–1.2) → OpenSSL names, as Node.js spells them. */
const GO_TO_OPENSSL_CIPHERS: Readonly<Record<string, string>> = Object.freeze({
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
});

/** TLS 1.3 suites: Go accepts the names but never lets them be configured; they stay enabled. */
const TLS13_SUITES = ['TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256', 'TLS_AES_128_GCM_SHA256'];

/**
 * The `ciphers` option for Node.js from `--tls-cipher-suites` (Go names, as upstream; OpenSSL names are
 * passed through). The TLS 1.3 suites are always kept, as Go does (Node.js would otherwise turn TLS 1.3 off).
 * @returns `undefined` for an empty list (Node.js defaults).
 * @throws Error `<flag>: cipher suite <name> not supported or doesn't exist` for an unknown Go-style name.
 */
export function nodeCipherList(names: readonly string[], flag: string): string | undefined {
  if (names.length === 0) return undefined;
  const out: string[] = [];
  for (const raw of names) {
    const name = raw.trim();
    if (TLS13_SUITES.includes(name)) continue;
    const mapped = GO_TO_OPENSSL_CIPHERS[name];
    if (mapped) out.push(mapped);
    else if (/^[A-Z0-9]+(-[A-Z0-9]+)*$/.test(name)) out.push(name);
    else throw new Error(`${flag}: cipher suite ${name} not supported or doesn't exist`);
  }
  return [...TLS13_SUITES, ...out].join(':');
}

/** Go `tls.CurveID` values → OpenSSL group names. */
const CURVES: Readonly<Record<number, string>> = Object.freeze({
  23: 'P-256',
  24: 'P-384',
  25: 'P-521',
  29: 'X25519',
  4588: 'X25519MLKEM768',
});

/**
 * The `ecdhCurve` option from `--tls-curve-preferences` (numeric Go CurveIDs: 23 P-256, 24 P-384, 25 P-521,
 * 29 X25519, 4588 X25519MLKEM768), in order.
 * @returns `undefined` for an empty list (Node.js defaults).
 * @throws Error naming the flag for a value that is not a known CurveID.
 */
export function nodeCurveList(ids: readonly string[], flag: string): string | undefined {
  if (ids.length === 0) return undefined;
  return ids
    .map((raw) => {
      const id = raw.trim();
      const name = /^\d+$/.test(id) ? CURVES[Number(id)] : undefined;
      if (!name) {
        throw new Error(
          `${flag}: unsupported curve ID ${JSON.stringify(raw)}; use 23 (P-256), 24 (P-384), 25 (P-521), 29 (X25519) or 4588 (X25519MLKEM768)`,
        );
      }
      return name;
    })
    .join(':');
}

/** Node.js `minVersion` values by upstream `--tls-min-version` value. */
const MIN_VERSIONS: Readonly<Record<string, 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'>> = Object.freeze({
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
});

/**
 * Validates `--tls-min-version` (`""`, `VersionTLS10`, `VersionTLS11`, `VersionTLS12`, `VersionTLS13`).
 * @throws Error listing the accepted values.
 */
export function validateTlsMinVersion(value: string): void {
  if (value !== '' && !(value in MIN_VERSIONS)) {
    throw new Error(`unknown tls version ${JSON.stringify(value)}; use one of ${Object.keys(MIN_VERSIONS).join(', ')}`);
  }
}

/** The Node.js `minVersion` for a validated `--tls-min-version`, or `undefined` (Node's default, TLS 1.2). */
export function nodeMinVersion(value: string): 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3' | undefined {
  return MIN_VERSIONS[value];
}

/** One `--tls-sni-cert-key` value: a certificate/key pair and, optionally, the domain patterns it serves. */
export interface NamedCertKey {
  /** Path of the PEM certificate (chain). */
  certFile: string;
  /** Path of the PEM private key. */
  keyFile: string;
  /** Explicit names (`*.foo.com`, `foo.com`); empty means "the names in the certificate". */
  names: string[];
}

/**
 * Parses `certfile,keyfile` or `certfile,keyfile:name1,name2` as component-base `NamedCertKey.Set` (items
 * trimmed; the name list, when present, must not be empty).
 * @throws Error saying which part is malformed.
 */
export function parseNamedCertKey(value: string): NamedCertKey {
  const colon = value.indexOf(':');
  let keycert = value.trim();
  let names: string[] = [];
  if (colon >= 0) {
    keycert = value.slice(0, colon).trim();
    const list = value.slice(colon + 1).trim();
    if (list === '') throw new Error('empty names list is not allowed');
    names = list.split(',').map((n) => n.trim());
  }
  const parts = keycert.split(',');
  if (parts.length !== 2) throw new Error('expected comma separated certificate and key file paths');
  return { certFile: parts[0]!.trim(), keyFile: parts[1]!.trim(), names };
}
