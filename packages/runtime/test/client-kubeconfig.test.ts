import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadKubeConfig } from '../src/client/index.js';

const yaml = (server: string, name = 'c1') => `apiVersion: v1
kind: Config
clusters:
- name: ${name}
  cluster:
    server: ${server}
    insecure-skip-tls-verify: true
users:
- name: u1
  user:
    token: t1
contexts:
- name: ctx
  context: { cluster: ${name}, user: u1 }
current-context: ctx
`;

describe('loadKubeConfig', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kc-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const emptyEnv = () => ({ HOME: dir });

  it('loads --kubeconfig', () => {
    const f = path.join(dir, 'kc.yaml');
    fs.writeFileSync(f, yaml('https://10.0.0.1:6443'));
    const kc = loadKubeConfig({ kubeconfig: f, env: emptyEnv() });
    expect(kc.getCurrentCluster()?.server).toBe('https://10.0.0.1:6443');
    expect(kc.getCurrentUser()?.token).toBe('t1');
  });

  it('--master overrides the kubeconfig server', () => {
    const f = path.join(dir, 'kc.yaml');
    fs.writeFileSync(f, yaml('https://10.0.0.1:6443'));
    const kc = loadKubeConfig({ kubeconfig: f, master: 'https://api.example:443', env: emptyEnv() });
    expect(kc.getCurrentCluster()?.server).toBe('https://api.example:443');
    expect(kc.getCurrentUser()?.token).toBe('t1');
  });

  it('--master alone with no kubeconfig files gives a bare server; http gets skipTLSVerify', () => {
    const kc = loadKubeConfig({ master: 'http://127.0.0.1:8080', env: emptyEnv() });
    expect(kc.getCurrentCluster()).toMatchObject({ server: 'http://127.0.0.1:8080', skipTLSVerify: true });
  });

  it('--master alone uses $KUBECONFIG credentials when present', () => {
    const f = path.join(dir, 'env.yaml');
    fs.writeFileSync(f, yaml('https://10.0.0.2:6443'));
    const kc = loadKubeConfig({ master: 'https://other:6443', env: { HOME: dir, KUBECONFIG: f } });
    expect(kc.getCurrentCluster()?.server).toBe('https://other:6443');
    expect(kc.getCurrentUser()?.token).toBe('t1');
  });

  it('neither flag: the in-cluster service account', () => {
    const sa = path.join(dir, 'var/run/secrets/kubernetes.io/serviceaccount');
    fs.mkdirSync(sa, { recursive: true });
    fs.writeFileSync(path.join(sa, 'token'), 'satoken');
    fs.writeFileSync(path.join(sa, 'ca.crt'), 'ca');
    fs.writeFileSync(path.join(sa, 'namespace'), 'kube-system');
    const kc = loadKubeConfig({
      inClusterPathPrefix: dir,
      env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
    });
    expect(kc.getCurrentCluster()?.server).toBe('https://[fd00::1]:443');
    expect(kc.getCurrentUser()?.authProvider?.config?.tokenFile).toBe(path.join(sa, 'token'));
    expect(process.env.KUBERNETES_SERVICE_HOST).not.toBe('fd00::1');
  });

  it('neither flag and not in a cluster: ~/.kube/config, else a clear error', () => {
    expect(() => loadKubeConfig({ env: emptyEnv() })).toThrow(
      /no Kubernetes configuration: pass --kubeconfig or --master/,
    );
    fs.mkdirSync(path.join(dir, '.kube'));
    fs.writeFileSync(path.join(dir, '.kube', 'config'), yaml('https://home:6443'));
    expect(loadKubeConfig({ env: emptyEnv() }).getCurrentCluster()?.server).toBe('https://home:6443');
  });

  it('names the flag on bad input', () => {
    expect(() => loadKubeConfig({ kubeconfig: path.join(dir, 'nope'), env: emptyEnv() })).toThrow(
      /--kubeconfig: cannot load/,
    );
    expect(() => loadKubeConfig({ master: 'not a url', env: emptyEnv() })).toThrow(/--master: not a URL/);
    expect(() => loadKubeConfig({ master: 'ftp://x', env: emptyEnv() })).toThrow(/--master: must be an http\(s\) URL/);
  });
});
