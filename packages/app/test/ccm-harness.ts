/**
 * Test helpers: run a provider's cloud-controller-manager binary as a child process against a control
 * plane, apply manifests, and call its HTTPS endpoints.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type KubeConfig, type KubernetesObject, KubernetesObjectApi } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Flags of an in-process manager that runs no controller and serves every registered webhook on 127.0.0.1:`port`
 * (gate on, no leader election, no secure port).
 */
export function webhookOnlyArgs(port: number): string[] {
  return [
    '--cloud-provider=fake',
    '--secure-port=0',
    '--leader-elect=false',
    '--controllers=',
    '--feature-gates=CloudControllerManagerWebhook=true',
    '--webhooks=*',
    `--webhook-secure-port=${port}`,
    '--webhook-bind-address=127.0.0.1',
  ];
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Creates every object of a multi-document YAML file (already-existing objects are left alone). */
export async function applyManifest(kc: KubeConfig, path: string): Promise<void> {
  const api = KubernetesObjectApi.makeApiClient(kc);
  for (const doc of parseAllDocuments(await readFile(path, 'utf8'))) {
    const obj = doc.toJS() as KubernetesObject | null;
    if (!obj) continue;
    try {
      await api.create(obj);
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err;
    }
  }
}

/** A child process with its combined output captured. */
export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Starts `node <script> ...args` with Node from this test run. */
export function startProcess(script: string, args: readonly string[]): RunningProcess {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/**
 * A ServiceAccount token allowed to GET /metrics (as Prometheus would scrape), issued through TokenRequest.
 */
export function metricsReaderToken(kc: KubeConfig): Promise<string> {
  return nonResourceReaderToken(kc, 'metrics-reader', ['/metrics', '/metrics/slis']);
}

/** A token of service account kube-system/<name>, bound to a ClusterRole allowing `get` on `paths`. */
export async function nonResourceReaderToken(kc: KubeConfig, name: string, paths: string[]): Promise<string> {
  const { CoreV1Api, RbacAuthorizationV1Api } = await import('@kubernetes/client-node');
  const core = kc.makeApiClient(CoreV1Api);
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  const ignoreExists = (err: unknown) => {
    if ((err as { code?: number }).code !== 409) throw err;
  };
  await core
    .createNamespacedServiceAccount({
      namespace: 'kube-system',
      body: { metadata: { name } },
    })
    .catch(ignoreExists);
  await rbac
    .createClusterRole({
      body: {
        metadata: { name },
        rules: [{ nonResourceURLs: paths, verbs: ['get'] }],
      },
    })
    .catch(ignoreExists);
  await rbac
    .createClusterRoleBinding({
      body: {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
        subjects: [{ kind: 'ServiceAccount', name, namespace: 'kube-system' }],
      },
    })
    .catch(ignoreExists);
  const tr = await core.createNamespacedServiceAccountToken({
    name,
    namespace: 'kube-system',
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  return tr.status?.token ?? '';
}

/** GET https://127.0.0.1:<port><path> without verifying the self-signed certificate. */
export function httpsGet(
  port: number,
  path: string,
  token?: string,
  clientCert?: { cert: string; key: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    const req = request(
      { host: '127.0.0.1', port, path, headers, rejectUnauthorized: false, timeout: 30_000, ...clientCert },
      (res) => {
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    // `timeout` only reports the idle socket: end the request, or a server that stopped answering hangs the test.
    req.on('timeout', () => req.destroy(new Error(`GET ${path}: no answer within 30 s`)));
    req.end();
  });
}

/** The client certificate and key (PEM) of a KubeConfig's current user. */
export function clientCertOf(kc: KubeConfig): { cert: string; key: string } {
  const u = kc.getCurrentUser();
  if (!u?.certData || !u.keyData) throw new Error('the KubeConfig user has no client certificate');
  return {
    cert: Buffer.from(u.certData, 'base64').toString(),
    key: Buffer.from(u.keyData, 'base64').toString(),
  };
}
