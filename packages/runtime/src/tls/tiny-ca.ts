/**
 * A tiny in-memory certificate authority, after controller-runtime's TinyCA
 * (`pkg/internal/testing/certs/tinyca.go`): each CA is ECDSA P-256 (by default CN `envtest-environment`,
 * O `envtest`, valid 168 hours); it issues serving certs (ExtKeyUsage serverAuth, SANs) and client
 * certs (clientAuth, CN = user name, O = groups). Keys are PKCS#8 PEM. Used by the test control plane
 * and for the cloud-controller-manager's self-signed serving certificate.
 * Uses @peculiar/x509 on Node's WebCrypto.
 */
import { webcrypto } from 'node:crypto';
import { loadX509 } from './load-x509.js';

/** Validity of every certificate: 168 hours, in milliseconds (as envtest). */
export const CERT_VALIDITY_MS = 168 * 3_600_000;

const EC_ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface CertKeyPair {
  readonly certPem: string;
  readonly keyPem: string;
}

/** What to put in a leaf certificate. */
export interface CertRequest {
  /** Subject CN (for client certs: the user name). */
  commonName: string;
  /** Subject O values (for client certs: the groups). */
  organizations?: readonly string[];
  /** DNS SANs. */
  dnsNames?: readonly string[];
  /** IP SANs. */
  ipAddresses?: readonly string[];
  /** `server` → ExtKeyUsage serverAuth; `client` → clientAuth. */
  usage: 'server' | 'client';
}

function toPem(der: ArrayBuffer, label: string): string {
  const b64 = Buffer.from(der).toString('base64');
  return `-----BEGIN ${label}-----\n${b64.replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;
}

function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0]! &= 0x7f; // positive
  bytes[0]! |= 0x01; // no leading zero byte
  return Buffer.from(bytes).toString('hex');
}

async function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(EC_ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

async function exportKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  return toPem(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

/** A tiny certificate authority held in memory. */
export class TinyCA {
  readonly #keys: webcrypto.CryptoKeyPair;
  readonly #name: string;
  readonly #validityMs: number;
  readonly #subjectKeyIdHex: string;
  /** The CA certificate, PEM. */
  readonly certPem: string;
  /** The CA private key, PEM (PKCS#8). */
  readonly keyPem: string;

  private constructor(
    keys: webcrypto.CryptoKeyPair,
    name: string,
    certPem: string,
    keyPem: string,
    subjectKeyIdHex: string,
    validityMs: number,
  ) {
    this.#validityMs = validityMs;
    this.#keys = keys;
    this.#name = name;
    this.certPem = certPem;
    this.keyPem = keyPem;
    this.#subjectKeyIdHex = subjectKeyIdHex;
  }

  /**
   * Creates a self-signed CA: ECDSA P-256, subject `CN=<commonName>, O=<organization>`.
   * @param commonName subject CN (default `envtest-environment`).
   * @param organization subject O (default `envtest`).
   * @param validityMs validity in milliseconds, also used for the certificates it issues (default {@link CERT_VALIDITY_MS}).
   */
  static async create(
    commonName = 'envtest-environment',
    organization = 'envtest',
    validityMs = CERT_VALIDITY_MS,
  ): Promise<TinyCA> {
    const x509 = await loadX509();
    const keys = await generateKeys();
    const now = Date.now();
    const name = new x509.Name([{ CN: [commonName] }, { O: [organization] }]).toString();
    const ski = await x509.SubjectKeyIdentifierExtension.create(keys.publicKey);
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: randomSerial(),
      name,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + validityMs),
      signingAlgorithm: EC_ALG,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.cRLSign,
          true,
        ),
        ski,
      ],
    });
    return new TinyCA(
      keys,
      name,
      cert.toString('pem') + '\n',
      await exportKeyPem(keys.privateKey),
      ski.keyId,
      validityMs,
    );
  }

  /**
   * Issues a leaf certificate signed by this CA, with a fresh ECDSA P-256 key.
   * @throws Error when `commonName` is empty.
   */
  async issue(req: CertRequest): Promise<CertKeyPair> {
    if (!req.commonName) throw new Error('issue: commonName must not be empty');
    const x509 = await loadX509();
    const keys = await generateKeys();
    const now = Date.now();
    const subject: Record<string, string[]>[] = [{ CN: [req.commonName] }];
    if (req.organizations && req.organizations.length > 0) subject.push({ O: [...req.organizations] });
    const sans = [
      ...(req.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
      ...(req.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
    ];
    const extensions = [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension(
        [req.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth],
        false,
      ),
      new x509.AuthorityKeyIdentifierExtension(this.#subjectKeyIdHex),
      ...(sans.length > 0 ? [new x509.SubjectAlternativeNameExtension(sans)] : []),
    ];
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject: new x509.Name(subject),
      issuer: this.#name,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + this.#validityMs),
      signingAlgorithm: EC_ALG,
      publicKey: keys.publicKey,
      signingKey: this.#keys.privateKey,
      extensions,
    });
    return { certPem: cert.toString('pem') + '\n', keyPem: await exportKeyPem(keys.privateKey) };
  }
}
