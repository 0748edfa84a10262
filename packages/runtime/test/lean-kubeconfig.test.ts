import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as clientNodeIndex from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as parts from '../src/client/client-node-parts.js';
import { LeanKubeConfig } from '../src/client/index.js';
import { asClientNodeKubeConfig, clientNode, typedConfiguration } from '../src/internal.js';

/** Headers the config adds to a request. */
async function authHeaders(kc: {
  applySecurityAuthentication(r: never): Promise<void>;
}): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  await kc.applySecurityAuthentication({
    setHeaderParam: (k: string, v: string) => {
      headers[k] = v;
    },
    setDispatcher: () => undefined,
  } as never);
  return headers;
}

const sample = (extraUsers = '') => `apiVersion: v1
kind: Config
current-context: second
clusters:
- name: c1
  cluster:
    server: https://10.0.0.1:6443/
    certificate-authority: ca.crt
    tls-server-name: api.internal
- name: c2
  cluster:
    server: https://10.0.0.2:6443
    certificate-authority-data: Y2E=
    insecure-skip-tls-verify: true
    proxy-url: http://proxy:3128
users:
- name: cert-user
  user:
    client-certificate: certs/client.crt
    client-key: /abs/client.key
- name: token-user
  user:
    token: tok
    as: someone
${extraUsers}contexts:
- name: first
  context: { cluster: c1, user: cert-user }
- name: second
  context: { cluster: c2, user: token-user, namespace: ns }
`;

describe('LeanKubeConfig', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lean-kc-'));
  });
  afterEach(() => {
    vi.useRealTimers();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads a kubeconfig file exactly as client-node KubeConfig.loadFromFile does', () => {
    const f = path.join(dir, 'kc.yaml');
    fs.writeFileSync(f, sample());
    const lean = new LeanKubeConfig();
    lean.loadFromFile(f);
    const full = new clientNodeIndex.KubeConfig();
    full.loadFromFile(f);
    expect(lean.getClusters()).toEqual(full.getClusters());
    expect(lean.getUsers()).toEqual(full.getUsers());
    expect(lean.getContexts()).toEqual(full.getContexts());
    expect(lean.getCurrentContext()).toBe('second');
    expect(lean.getCurrentCluster()).toEqual(full.getCurrentCluster());
    expect(lean.getCurrentUser()).toEqual(full.getCurrentUser());
    // relative certificate paths resolve against the file's directory
    lean.setCurrentContext('first');
    expect(lean.getCurrentCluster()?.caFile).toBe(path.join(dir, 'ca.crt'));
    expect(lean.getCurrentUser()?.certFile).toBe(path.join(dir, 'certs/client.crt'));
    expect(lean.getCurrentUser()?.keyFile).toBe('/abs/client.key');
  });

  it('current-context semantics: an unknown or missing current context has no cluster or user', () => {
    const lean = new LeanKubeConfig();
    lean.loadFromString(sample().replace('current-context: second', 'current-context: nope'));
    expect(lean.getCurrentCluster()).toBeNull();
    expect(lean.getCurrentUser()).toBeNull();
    lean.loadFromString(sample().replace('current-context: second\n', ''));
    expect(lean.getCurrentCluster()).toBeNull();
  });

  it('rejects an entry without a server, naming it (client-node onInvalidEntry semantics)', () => {
    const bad = sample().replace('    server: https://10.0.0.2:6443\n', '');
    expect(() => new LeanKubeConfig().loadFromString(bad)).toThrow('clusters[1].cluster.server is missing');
    const lean = new LeanKubeConfig();
    lean.loadFromString(bad, { onInvalidEntry: 'filter' });
    expect(lean.getClusters().map((c) => c.name)).toEqual(['c1']);
  });

  it('sends a bearer token and Impersonate-User; token-file is read at load', async () => {
    const lean = new LeanKubeConfig();
    lean.loadFromString(sample());
    expect(await authHeaders(lean)).toEqual({ Authorization: 'Bearer tok', 'Impersonate-User': 'someone' });
    const tf = path.join(dir, 'token');
    fs.writeFileSync(tf, 'from-file');
    lean.loadFromString(
      sample(`- name: tf-user\n  user:\n    token-file: ${tf}\n`).replace('user: token-user', 'user: tf-user'),
    );
    expect(await authHeaders(lean)).toEqual({ Authorization: 'Bearer from-file' });
  });

  it('sends basic auth for username/password', async () => {
    const lean = new LeanKubeConfig();
    lean.loadFromString(
      sample('- name: basic\n  user:\n    username: u\n    password: p\n').replace('user: token-user', 'user: basic'),
    );
    expect(await authHeaders(lean)).toEqual({ Authorization: `Basic ${Buffer.from('u:p').toString('base64')}` });
  });

  it('in-cluster: server from the environment (IPv6 in brackets, http on 8080), the CA, namespace and a token file re-read after 60 s', async () => {
    const sa = path.join(dir, 'var/run/secrets/kubernetes.io/serviceaccount');
    fs.mkdirSync(sa, { recursive: true });
    fs.writeFileSync(path.join(sa, 'token'), 'one');
    fs.writeFileSync(path.join(sa, 'namespace'), 'kube-system');
    vi.stubEnv('KUBERNETES_SERVICE_HOST', 'fd00::1');
    vi.stubEnv('KUBERNETES_SERVICE_PORT', '443');
    try {
      const lean = new LeanKubeConfig();
      lean.loadFromCluster(dir);
      const full = new clientNodeIndex.KubeConfig();
      full.loadFromCluster(dir);
      expect(lean.getCurrentCluster()).toEqual(full.getCurrentCluster());
      expect(lean.getCurrentCluster()?.server).toBe('https://[fd00::1]:443');
      expect(lean.getContexts()).toEqual(full.getContexts());
      expect(lean.getUsers()).toEqual(full.getUsers());

      vi.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00Z'), toFake: ['Date'] });
      expect(await authHeaders(lean)).toEqual({ Authorization: 'Bearer one' });
      fs.writeFileSync(path.join(sa, 'token'), 'two'); // a rotated bound token
      vi.setSystemTime(Date.parse('2026-01-01T00:00:30Z'));
      expect(await authHeaders(lean)).toEqual({ Authorization: 'Bearer one' });
      vi.setSystemTime(Date.parse('2026-01-01T00:01:01Z'));
      expect(await authHeaders(lean)).toEqual({ Authorization: 'Bearer two' });

      vi.stubEnv('KUBERNETES_SERVICE_PORT', '8080');
      lean.loadFromCluster(dir);
      expect(lean.getCurrentCluster()?.server).toBe('http://[fd00::1]:8080');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('runs an exec plugin with its args and env, and caches the credential until it expires', async () => {
    const counter = path.join(dir, 'calls');
    const script = path.join(dir, 'plugin.mjs');
    fs.writeFileSync(
      script,
      `import fs from 'node:fs';
const n = (fs.existsSync(${JSON.stringify(counter)}) ? Number(fs.readFileSync(${JSON.stringify(counter)}, 'utf8')) : 0) + 1;
fs.writeFileSync(${JSON.stringify(counter)}, String(n));
const exp = process.argv[2] === 'expired' ? '2000-01-01T00:00:00Z' : '2999-01-01T00:00:00Z';
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential',
  status: { token: process.env.PREFIX + n, expirationTimestamp: exp } }));
`,
    );
    const user = (arg: string) =>
      `- name: exec-user\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${process.execPath}\n      args: [${script}, ${arg}]\n      env: [{ name: PREFIX, value: tok- }]\n`;
    const lean = new LeanKubeConfig();
    lean.loadFromString(sample(user('valid')).replace('user: token-user', 'user: exec-user'));
    expect(await authHeaders(lean)).toEqual({ Authorization: 'Bearer tok-1' });
    expect(await authHeaders(lean)).toEqual({ Authorization: 'Bearer tok-1' }); // cached
    const expired = new LeanKubeConfig();
    expired.loadFromString(sample(user('expired')).replace('user: token-user', 'user: exec-user'));
    expect(await authHeaders(expired)).toEqual({ Authorization: 'Bearer tok-2' });
    expect(await authHeaders(expired)).toEqual({ Authorization: 'Bearer tok-3' }); // expired: run again
  });

  it('delegates other auth providers to client-node KubeConfig (azure access-token here)', async () => {
    const lean = new LeanKubeConfig();
    lean.loadFromString(
      sample(
        "- name: az\n  user:\n    auth-provider:\n      name: azure\n      config:\n        access-token: az-token\n        expiry: '2999-01-01T00:00:00Z'\n",
      ).replace('user: token-user', 'user: az'),
    );
    expect(await authHeaders(lean)).toEqual({ Authorization: 'Bearer az-token' });
  });

  it('converts to client-node KubeConfig (typed clients, makeApiClient) with the same entries', () => {
    const lean = new LeanKubeConfig();
    lean.loadFromString(sample());
    const full = asClientNodeKubeConfig(lean);
    expect(full).toBeInstanceOf(clientNodeIndex.KubeConfig);
    expect(full.getCurrentCluster()).toEqual(lean.getCurrentCluster());
    expect(full.getCurrentUser()).toEqual(lean.getCurrentUser());
    expect(lean.makeApiClient(clientNodeIndex.CoreV1Api)).toBeInstanceOf(clientNodeIndex.CoreV1Api);
    const kc = new clientNodeIndex.KubeConfig();
    expect(asClientNodeKubeConfig(kc)).toBe(kc);
  });

  it('mergeConfig adds entries, rejects duplicates, and keeps the current context when asked', () => {
    const a = new LeanKubeConfig();
    a.loadFromString(sample());
    const b = new LeanKubeConfig();
    b.loadFromClusterAndUser({ name: 'c3', server: 'https://c3', skipTLSVerify: false }, { name: 'u3' });
    a.mergeConfig(b, true);
    expect(a.getCurrentContext()).toBe('second');
    expect(a.getClusters().map((c) => c.name)).toEqual(['c1', 'c2', 'c3']);
    expect(() => a.mergeConfig(b)).toThrow('Duplicate cluster: c3');
  });
});

describe('client-node-parts', () => {
  it('are the same modules the client-node index exports (an upgrade that moves them fails here)', () => {
    expect(parts.V1MicroTime).toBe(clientNodeIndex.V1MicroTime);
    expect(parts.ApiException).toBe(clientNodeIndex.ApiException);
    expect(clientNode()).toBe(clientNode());
    expect(clientNode().KubeConfig).toBe(clientNodeIndex.KubeConfig);
  });

  it("typedConfiguration is the object client-node's createConfiguration makes for the same parameters", () => {
    const httpApi = clientNodeIndex.wrapHttpLibrary({ send: () => Promise.reject(new Error('not sent')) });
    const auth = { applySecurityAuthentication: () => undefined };
    const ours = typedConfiguration('https://api.example:6443', httpApi, auth);
    const theirs = clientNodeIndex.createConfiguration({
      baseServer: new clientNodeIndex.ServerConfiguration('https://api.example:6443', {}),
      httpApi,
      authMethods: { default: auth as unknown as clientNodeIndex.KubeConfig },
    });
    expect(ours).toStrictEqual(theirs);
    expect(ours.baseServer.makeRequestContext('/api/v1/nodes', clientNodeIndex.HttpMethod.GET).getUrl()).toBe(
      'https://api.example:6443/api/v1/nodes',
    );
  });
});
