/**
 * Turns a {@link SecureServingConfig} (the secure port's or the webhook port's flags) into the TLS part of
 * {@link SecureServerOptions}: the certificate, SNI certificates, cipher list, curves and minimum version.
 */
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { SecureServingConfig } from '../options/config.js';
import { servingCertificate } from './certificate.js';
import type { SecureServerOptions } from './secure-server.js';
import { loadSniCertificates } from './sni.js';
import { nodeCipherList, nodeCurveList, nodeMinVersion } from '../options/tls-options.js';

/** The TLS and listening options of one port. */
export type ServingTlsOptions = Pick<
  SecureServerOptions,
  | 'bindAddress'
  | 'port'
  | 'certPem'
  | 'keyPem'
  | 'minVersion'
  | 'ciphers'
  | 'ecdhCurve'
  | 'sniCertificates'
  | 'reusePort'
>;

/**
 * Loads or generates the certificates and maps the TLS flags.
 * @param flagPrefix `''` for the secure port, `'webhook-'` for the webhook port (names flags in errors).
 * @throws Error naming the flag when a certificate file cannot be read or a TLS value is unusable.
 */
export async function servingTlsOptions(
  s: SecureServingConfig,
  flagPrefix: '' | 'webhook-',
): Promise<ServingTlsOptions> {
  const cert = await servingCertificate({ ...s, flagPrefix });
  const ciphers = nodeCipherList(s.tlsCipherSuites, `--${flagPrefix}tls-cipher-suites`);
  const ecdhCurve = nodeCurveList(s.tlsCurvePreferences, `--${flagPrefix}tls-curve-preferences`);
  // Let OpenSSL judge the names now, so that a bad value is reported against its flag.
  checkWithOpenSSL({ ciphers }, `--${flagPrefix}tls-cipher-suites`, s.tlsCipherSuites);
  checkWithOpenSSL({ ecdhCurve }, `--${flagPrefix}tls-curve-preferences`, s.tlsCurvePreferences);
  return {
    bindAddress: s.bindAddress,
    port: s.securePort,
    certPem: cert.certPem,
    keyPem: cert.keyPem,
    minVersion: nodeMinVersion(s.tlsMinVersion),
    ciphers,
    ecdhCurve,
    sniCertificates: await loadSniCertificates(s.tlsSniCertKeys, `--${flagPrefix}tls-sni-cert-key`),
    reusePort: s.permitPortSharing,
  };
}

function checkWithOpenSSL(opts: SecureContextOptions, flag: string, given: readonly string[]): void {
  if (Object.values(opts).every((v) => v === undefined)) return;
  try {
    createSecureContext(opts);
  } catch (err) {
    throw new Error(`${flag}=${given.join(',')}: not supported by this Node.js/OpenSSL (${(err as Error).message})`, {
      cause: err,
    });
  }
}
