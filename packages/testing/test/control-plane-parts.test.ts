import { X509Certificate } from 'node:crypto';
import { CERT_VALIDITY_MS, TinyCA } from '@ccm-kit/runtime/internal';
import { describe, expect, it } from 'vitest';
import { apiServerArgs, apiServerDefaultFlags } from '../src/control-plane/apiserver.js';
import { durationFromEnv, parseDurationMs } from '../src/control-plane/duration.js';
import { etcdDefaultFlags } from '../src/control-plane/etcd.js';
import { mergeFlags, renderFlags } from '../src/control-plane/flags.js';
import { kubeConfigFor, kubeconfigYaml } from '../src/control-plane/kubeconfig.js';
import { OutputRingBuffer } from '../src/control-plane/ring-buffer.js';

describe('parseDurationMs', () => {
  it('reads Go durations and bare milliseconds', () => {
    expect(parseDurationMs('20s')).toBe(20_000);
    expect(parseDurationMs('1m30s')).toBe(90_000);
    expect(parseDurationMs('1.5h')).toBe(5_400_000);
    expect(parseDurationMs('250ms')).toBe(250);
    expect(parseDurationMs('1500us')).toBe(1.5);
    expect(parseDurationMs('5000')).toBe(5000);
    expect(parseDurationMs('0')).toBe(0);
  });
  it('rejects garbage with the variable name', () => {
    expect(() => parseDurationMs('20 seconds', 'X_TIMEOUT')).toThrow(/X_TIMEOUT: invalid duration "20 seconds"/);
    expect(() => parseDurationMs('s', 'X')).toThrow(/invalid duration/);
    expect(() => parseDurationMs('10d', 'X')).toThrow(/invalid duration/);
  });
  it('durationFromEnv: default when unset or empty, error when negative', () => {
    expect(durationFromEnv('T', 60_000, {})).toBe(60_000);
    expect(durationFromEnv('T', 60_000, { T: '' })).toBe(60_000);
    expect(durationFromEnv('T', 60_000, { T: '2m' })).toBe(120_000);
    expect(() => durationFromEnv('T', 1, { T: '-1s' })).toThrow(/T: duration must not be negative/);
  });
});

describe('OutputRingBuffer', () => {
  it('keeps only the most recent bytes', () => {
    const b = new OutputRingBuffer(10);
    b.push('hello ');
    b.push('world, ');
    b.push('bye');
    expect(b.toString()).toBe('world, bye');
    expect(b.size).toBe(10);
    b.push('0123456789ABCDEF');
    expect(b.toString()).toBe('6789ABCDEF');
    expect(b.size).toBe(10);
  });
  it('rejects a non-positive size', () => {
    expect(() => new OutputRingBuffer(0)).toThrow(/maxBytes/);
  });
});

describe('flags', () => {
  it('merges overrides: set, repeat, remove; keeps order', () => {
    const merged = mergeFlags(
      new Map([
        ['a', ['1']],
        ['b', ['2']],
      ]),
      { b: null, c: ['x', 'y'], a: '9' },
    );
    expect(renderFlags(merged)).toEqual(['--a=9', '--c=x', '--c=y']);
  });
  it('rejects names with dashes', () => {
    expect(() => mergeFlags(new Map(), { '--v': '2' })).toThrow(/without leading dashes/);
  });
});

describe('default flags', () => {
  it('kube-apiserver gets envtest defaults plus advertise-address', () => {
    const args = apiServerArgs({
      binary: 'x',
      certDir: '/c',
      securePort: 6443,
      etcdUrl: 'http://127.0.0.1:2379',
    });
    expect(args).toEqual(
      expect.arrayContaining([
        '--authorization-mode=RBAC',
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        '--service-cluster-ip-range=10.0.0.0/24',
        '--disable-admission-plugins=ServiceAccount',
        '--allow-privileged=true',
        '--cert-dir=/c',
        '--secure-port=6443',
        '--etcd-servers=http://127.0.0.1:2379',
        '--client-ca-file=/c/client-cert-auth-ca.crt',
        '--service-account-issuer=https://127.0.0.1:6443/',
        '--service-account-key-file=/c/sa-signer.crt',
        '--service-account-signing-key-file=/c/sa-signer.key',
      ]),
    );
    expect(apiServerDefaultFlags({ certDir: '/c', securePort: 1, etcdUrl: 'e' }).size).toBe(args.length);
    const custom = apiServerArgs({
      binary: 'x',
      certDir: '/c',
      securePort: 1,
      etcdUrl: 'e',
      flags: { 'advertise-address': null, 'feature-gates': 'A=true' },
    });
    expect(custom).toContain('--feature-gates=A=true');
    expect(custom.some((a) => a.startsWith('--advertise-address'))).toBe(false);
  });
  it('etcd listens on loopback and skips fsync', () => {
    expect(renderFlags(etcdDefaultFlags({ dataDir: '/d', clientPort: 1, peerPort: 2 }))).toEqual([
      '--data-dir=/d',
      '--listen-client-urls=http://127.0.0.1:1',
      '--advertise-client-urls=http://127.0.0.1:1',
      '--listen-peer-urls=http://127.0.0.1:2',
      '--initial-advertise-peer-urls=http://127.0.0.1:2',
      '--initial-cluster=default=http://127.0.0.1:2',
      '--unsafe-no-fsync=true',
    ]);
  });
});

describe('TinyCA', () => {
  it('makes an ECDSA P-256 CA valid for 168 h', async () => {
    const ca = await TinyCA.create();
    const cert = new X509Certificate(ca.certPem);
    expect(cert.ca).toBe(true);
    expect(cert.subject).toBe('CN=envtest-environment\nO=envtest');
    expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const validity = Date.parse(cert.validTo) - Date.parse(cert.validFrom);
    expect(Math.abs(validity - CERT_VALIDITY_MS - 60_000)).toBeLessThan(2_000);
    expect(cert.verify(cert.publicKey)).toBe(true);
  });

  it('issues a serving cert for localhost and 127.0.0.1', async () => {
    const ca = await TinyCA.create();
    const pair = await ca.issue({
      commonName: 'localhost',
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1'],
      usage: 'server',
    });
    const cert = new X509Certificate(pair.certPem);
    const caCert = new X509Certificate(ca.certPem);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(pair.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(cert.checkPrivateKey((await import('node:crypto')).createPrivateKey(pair.keyPem))).toBe(true);
  });

  it('issues a client cert with CN = user and O = groups', async () => {
    const ca = await TinyCA.create();
    const pair = await ca.issue({ commonName: 'alice', organizations: ['dev', 'ops'], usage: 'client' });
    const cert = new X509Certificate(pair.certPem);
    // One multi-valued O RDN, as Go's pkix.Name encodes Organization; kube-apiserver reads both groups.
    expect(cert.subject).toBe('CN=alice\nO=dev + O=ops');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(cert.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    // A cert from another CA does not verify against this one.
    const other = await TinyCA.create();
    expect(cert.verify(new X509Certificate(other.certPem).publicKey)).toBe(false);
  });

  it('rejects an empty common name', async () => {
    const ca = await TinyCA.create();
    await expect(ca.issue({ commonName: '', usage: 'client' })).rejects.toThrow(/commonName must not be empty/);
  });
});

describe('kubeconfig', () => {
  it('builds a kubeconfig and an equivalent client-node KubeConfig', () => {
    const spec = {
      server: 'https://127.0.0.1:1234',
      caPem: 'CA',
      certPem: 'CERT',
      keyPem: 'KEY',
      userName: 'bob',
    };
    const yaml = kubeconfigYaml(spec);
    expect(yaml).toContain('current-context: bob@envtest');
    const kc = kubeConfigFor(spec);
    expect(kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:1234');
    expect(Buffer.from(kc.getCurrentCluster()!.caData!, 'base64').toString()).toBe('CA');
    expect(kc.getCurrentUser()?.name).toBe('bob');
    expect(Buffer.from(kc.getCurrentUser()!.certData!, 'base64').toString()).toBe('CERT');
    expect(Buffer.from(kc.getCurrentUser()!.keyData!, 'base64').toString()).toBe('KEY');
  });
});
