/**
 * The TLS flags of secure serving (upstream `k8s.io/cloud-provider options/options.go`): Go cipher-suite names, CurveIDs and TLS versions mapped for
 * Node.js, `--tls-sni-cert-key` parsing and SNI selection on a real TLS listener (loopback).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import { createLogger } from '@ccm-kit/runtime';
import { TinyCA } from '@ccm-kit/runtime/internal';
import { describe, expect, it } from 'vitest';
import { parseFlags } from '../src/flags/flag-set.js';
import { cloudControllerManagerFlagSets } from '../src/options/ccm-flags.js';
import { buildConfig, ConfigError } from '../src/options/config.js';
import { DelegatedAuth } from '../src/serving/delegated-auth.js';
import { startSecureServer } from '../src/serving/secure-server.js';
import { servingTlsOptions } from '../src/serving/serving-options.js';
import {
  nodeCipherList,
  nodeCurveList,
  nodeMinVersion,
  parseNamedCertKey,
  validateTlsMinVersion,
} from '../src/options/tls-options.js';

const known = { controllers: [], controllerAliases: {}, webhooks: [] };
const build = (argv: string[]) =>
  buildConfig(parseFlags(['--cloud-provider=x', ...argv], cloudControllerManagerFlagSets()), known);

describe('--tls-cipher-suites / --tls-curve-preferences / --tls-min-version', () => {
  it('maps Go cipher names to OpenSSL names and keeps the TLS 1.3 suites enabled, as Go does', () => {
    expect(
      nodeCipherList(
        ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305', 'TLS_AES_128_GCM_SHA256'],
        '--tls-cipher-suites',
      ),
    ).toBe(
      'TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305',
    );
    expect(nodeCipherList([], '--tls-cipher-suites')).toBeUndefined();
    expect(nodeCipherList(['ECDHE-RSA-AES256-GCM-SHA384'], '--x')).toContain('ECDHE-RSA-AES256-GCM-SHA384');
  });

  it('an unknown cipher or curve is a configuration error naming the flag', () => {
    try {
      build(['--tls-cipher-suites=TLS_FOO_BAR', '--webhook-tls-curve-preferences=7']);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems).toEqual([
        "--tls-cipher-suites: cipher suite TLS_FOO_BAR not supported or doesn't exist",
        '--webhook-tls-curve-preferences: unsupported curve ID "7"; use 23 (P-256), 24 (P-384), 25 (P-521), 29 (X25519) or 4588 (X25519MLKEM768)',
      ]);
    }
  });

  it('an OpenSSL-style name OpenSSL does not know fails at start-up naming the flag', async () => {
    const c = build(['--tls-cipher-suites=FOO-BAR']);
    await expect(servingTlsOptions(c.secureServing, '')).rejects.toThrow(
      /^--tls-cipher-suites=FOO-BAR: not supported by this Node.js\/OpenSSL \(.*no cipher match\)$/,
    );
  });

  it('maps CurveIDs and TLS versions', () => {
    expect(nodeCurveList(['29', '23', '24'], '--tls-curve-preferences')).toBe('X25519:P-256:P-384');
    expect(nodeMinVersion('VersionTLS10')).toBe('TLSv1');
    expect(nodeMinVersion('VersionTLS13')).toBe('TLSv1.3');
    expect(nodeMinVersion('')).toBeUndefined();
    expect(() => validateTlsMinVersion('VersionTLS11')).not.toThrow();
    expect(() => build(['--tls-min-version=TLS1.2'])).toThrow(
      /invalid argument "TLS1.2" for "--tls-min-version" flag: unknown tls version "TLS1.2"; use one of VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13/,
    );
  });
});

describe('--tls-sni-cert-key', () => {
  it('parses cert,key and cert,key:names as component-base NamedCertKey', () => {
    expect(parseNamedCertKey('a.crt,a.key')).toEqual({ certFile: 'a.crt', keyFile: 'a.key', names: [] });
    expect(parseNamedCertKey(' a.crt , a.key : *.foo.com, foo.com ')).toEqual({
      certFile: 'a.crt',
      keyFile: 'a.key',
      names: ['*.foo.com', 'foo.com'],
    });
    expect(() => parseNamedCertKey('a.crt,a.key:')).toThrow('empty names list is not allowed');
    expect(() => parseNamedCertKey('a.crt')).toThrow('expected comma separated certificate and key file paths');
  });

  it('is repeatable and keeps commas inside a value', () => {
    const c = build(['--tls-sni-cert-key=a.crt,a.key:x.com,y.com', '--tls-sni-cert-key', 'b.crt,b.key']);
    expect(c.secureServing.tlsSniCertKeys).toEqual([
      { certFile: 'a.crt', keyFile: 'a.key', names: ['x.com', 'y.com'] },
      { certFile: 'b.crt', keyFile: 'b.key', names: [] },
    ]);
    expect(() => build(['--tls-sni-cert-key=a.crt'])).toThrow(
      /invalid argument "a.crt" for "--tls-sni-cert-key" flag: expected comma separated certificate and key file paths/,
    );
  });

  it('serves the certificate matching the server name (exact, then wildcard, explicit over extracted), else the default', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ccm-sni-'));
    const ca = await TinyCA.create('sni-test-ca', 'test', 3_600_000);
    const write = async (name: string, dnsNames: string[]) => {
      const leaf = await ca.issue({ commonName: name, dnsNames, ipAddresses: [], usage: 'server' });
      await writeFile(join(dir, `${name}.crt`), leaf.certPem);
      await writeFile(join(dir, `${name}.key`), leaf.keyPem);
      return `${join(dir, `${name}.crt`)},${join(dir, `${name}.key`)}`;
    };
    const extracted = await write('extracted', ['api.example.com', '*.apps.example.com']);
    const explicit = await write('explicit', ['whatever.invalid']);
    const config = build([
      '--bind-address=127.0.0.1',
      '--secure-port=0',
      `--tls-sni-cert-key=${extracted}`,
      `--tls-sni-cert-key=${explicit}:api.example.com`,
    ]);
    const server = await startSecureServer({
      ...(await servingTlsOptions({ ...config.secureServing, securePort: 0 }, '')),
      auth: new DelegatedAuth({
        alwaysAllowPaths: [],
        tokenCacheTtlMs: 0,
        authorizedTtlMs: 0,
        unauthorizedTtlMs: 0,
        clientCertAuth: false,
      }),
      routes: {},
      logger: createLogger('sni-test'),
    });
    const peerCN = (servername: string) =>
      new Promise<string>((resolve, reject) => {
        const sock = connect({ host: '127.0.0.1', port: server.port, servername, rejectUnauthorized: false }, () => {
          const cert: PeerCertificate = sock.getPeerCertificate();
          sock.end();
          resolve(String(cert.subject.CN));
        });
        sock.once('error', reject);
      });
    try {
      expect(await peerCN('api.example.com')).toBe('explicit');
      expect(await peerCN('web.apps.example.com')).toBe('extracted');
      expect(await peerCN('other.example.org')).toMatch(/^cloud-controller-manager@/);
    } finally {
      await server.close();
    }
  });
});
