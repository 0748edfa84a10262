/**
 * SNI certificates for secure serving (`--tls-sni-cert-key`, `--webhook-tls-sni-cert-key`). Follows
 * k8s.io/apiserver `dynamiccertificates` (names from the flag, else the certificate's CN and SANs; explicit
 * names trump names read from certificates, and earlier flags win a name) and Go `crypto/tls` `getCertificate` (exact server name first, then the name with its
 * first label replaced by `*`; no match serves the default certificate).
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureContext, type SecureContext, type SecureContextOptions } from 'node:tls';
import type { NamedCertKey } from '../options/tls-options.js';

/** A loaded SNI certificate and the names it serves. */
export interface SniCertificate {
  certPem: string;
  keyPem: string;
  /** Lower-case names and `*.`-wildcards this certificate is selected for. */
  names: string[];
  /** True when the names came from the flag (they trump names read from certificates). */
  explicit: boolean;
}

/** The names a certificate serves when the flag gives none: its CN (if it looks like a host name) and SANs. */
export function certificateNames(certPem: string): string[] {
  const cert = new X509Certificate(certPem);
  const names: string[] = [];
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(cert.subject)?.[1]?.trim();
  if (cn && /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(cn)) names.push(cn.toLowerCase());
  for (const entry of (cert.subjectAltName ?? '').split(/,\s*/)) {
    const m = /^(DNS|IP Address):(.+)$/.exec(entry.trim());
    if (m) names.push(m[2]!.toLowerCase());
  }
  return [...new Set(names)];
}

/**
 * Reads each pair and works out its names.
 * @throws Error naming `flag` and the file when a file cannot be read or the certificate does not parse.
 */
export async function loadSniCertificates(keys: readonly NamedCertKey[], flag: string): Promise<SniCertificate[]> {
  const out: SniCertificate[] = [];
  for (const k of keys) {
    let certPem: string;
    let keyPem: string;
    try {
      certPem = await readFile(k.certFile, 'utf8');
      keyPem = await readFile(k.keyFile, 'utf8');
    } catch (err) {
      throw new Error(`${flag}: cannot read ${k.certFile},${k.keyFile}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    let names: string[];
    try {
      names = k.names.length > 0 ? k.names.map((n) => n.toLowerCase()) : certificateNames(certPem);
    } catch (err) {
      throw new Error(`${flag}: ${k.certFile} is not a PEM certificate: ${(err as Error).message}`, {
        cause: err,
      });
    }
    out.push({ certPem, keyPem, names, explicit: k.names.length > 0 });
  }
  return out;
}

/**
 * A Node.js `SNICallback` choosing among `certs` by server name; `undefined` when there are none.
 * `base` carries the other TLS settings (ciphers, curves, min version) into each context.
 */
export function sniCallback(
  certs: readonly SniCertificate[],
  base: SecureContextOptions = {},
): ((servername: string, cb: (err: Error | null, ctx?: SecureContext) => void) => void) | undefined {
  if (certs.length === 0) return undefined;
  const byName = new Map<string, SecureContext>();
  const contexts = new Map(
    certs.map((c) => [c, createSecureContext({ ...base, cert: c.certPem, key: c.keyPem })] as const),
  );
  // Names read from certificates first, then explicit ones over them; in each group, earlier flags win.
  for (const explicit of [false, true]) {
    for (const c of [...certs].reverse()) {
      if (c.explicit !== explicit) continue;
      for (const n of c.names) byName.set(n, contexts.get(c)!);
    }
  }
  return (servername, cb) => {
    const name = servername.toLowerCase();
    let ctx = byName.get(name);
    if (!ctx) {
      const dot = name.indexOf('.');
      if (dot > 0) ctx = byName.get(`*${name.slice(dot)}`);
    }
    cb(null, ctx);
  };
}
