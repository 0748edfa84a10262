/**
 * Loading the KubeConfig the way the cloud-controller-manager's `--kubeconfig` and `--master`
 * flags do (client-go `clientcmd.BuildConfigFromFlags`):
 * - neither given: the in-cluster service account, else `$KUBECONFIG` / `~/.kube/config`;
 * - `kubeconfig`: that file (its current context);
 * - `master`: overrides the server of the chosen cluster; alone, it is used with the default
 *   kubeconfig files when present, else as a bare server with no credentials.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Cluster } from '@kubernetes/client-node';
import { LeanKubeConfig } from './lean-kubeconfig.js';
import { createLogger } from '../logging.js';

const log = createLogger('kubeconfig');

/** Where to load the configuration from; all fields optional. */
export interface LoadKubeConfigOptions {
  /** Path of a kubeconfig file (`--kubeconfig`). */
  kubeconfig?: string;
  /** API server URL overriding the kubeconfig's server (`--master`). */
  master?: string;
  /** Prefix for the service-account files, for tests (default ''). */
  inClusterPathPrefix?: string;
  /** Environment to read `KUBERNETES_SERVICE_HOST`/`_PORT`/`KUBECONFIG`/`HOME` from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

const saTokenPath = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * Loads a KubeConfig from flags, as described in the module docs. The result is a {@link LeanKubeConfig}
 * (client-node's `KubeConfig` semantics without loading its generated API; `toKubeConfig()` converts).
 * @throws Error naming the flag when the kubeconfig file cannot be read, `master` is not an
 *   http(s) URL, or no configuration is available at all.
 */
export function loadKubeConfig(opts: LoadKubeConfigOptions = {}): LeanKubeConfig {
  const env = opts.env ?? process.env;
  const prefix = opts.inClusterPathPrefix ?? '';
  const kc = new LeanKubeConfig();
  if (opts.master !== undefined && opts.master !== '') {
    let u: URL;
    try {
      u = new URL(opts.master);
    } catch {
      throw new Error(`--master: not a URL: ${JSON.stringify(opts.master)}`);
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:')
      throw new Error(`--master: must be an http(s) URL, got ${opts.master}`);
  }

  if (opts.kubeconfig) {
    try {
      kc.loadFromFile(opts.kubeconfig);
    } catch (err) {
      throw new Error(`--kubeconfig: cannot load ${opts.kubeconfig}: ${(err as Error).message}`, { cause: err });
    }
  } else if (!opts.master) {
    const host = env.KUBERNETES_SERVICE_HOST;
    const port = env.KUBERNETES_SERVICE_PORT;
    if (host && port && fs.existsSync(prefix + saTokenPath)) {
      log.info('Neither --kubeconfig nor --master was specified. Using the inClusterConfig.');
      withEnv(env, () => kc.loadFromCluster(prefix));
    } else if (!loadDefaultFiles(kc, env)) {
      throw new Error(
        'no Kubernetes configuration: pass --kubeconfig or --master, set KUBECONFIG, or run in a cluster with a service account',
      );
    }
  } else if (!loadDefaultFiles(kc, env)) {
    kc.loadFromClusterAndUser({ name: 'master', server: opts.master, skipTLSVerify: false }, { name: 'anonymous' });
  }

  if (opts.master) overrideServer(kc, opts.master);
  allowPlainHttp(kc);
  if (!kc.getCurrentCluster()) {
    throw new Error(`kubeconfig${opts.kubeconfig ? ` ${opts.kubeconfig}` : ''}: no current context with a cluster`);
  }
  return kc;
}

function withEnv(env: NodeJS.ProcessEnv, fn: () => void): void {
  if (env === process.env) {
    fn();
    return;
  }
  const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
  process.env.KUBERNETES_SERVICE_HOST = env.KUBERNETES_SERVICE_HOST;
  process.env.KUBERNETES_SERVICE_PORT = env.KUBERNETES_SERVICE_PORT;
  try {
    fn();
  } finally {
    restore('KUBERNETES_SERVICE_HOST', saved.host);
    restore('KUBERNETES_SERVICE_PORT', saved.port);
  }
}

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** `$KUBECONFIG` (first file, others merged) or `~/.kube/config`; false when neither exists. */
function loadDefaultFiles(kc: LeanKubeConfig, env: NodeJS.ProcessEnv): boolean {
  const files = (env.KUBECONFIG ?? '').split(path.delimiter).filter((f) => f !== '' && fs.existsSync(f));
  if (files.length > 0) {
    kc.loadFromFile(files[0] as string);
    for (const f of files.slice(1)) {
      const other = new LeanKubeConfig();
      other.loadFromFile(f);
      kc.mergeConfig(other, true);
    }
    return true;
  }
  const home = env.HOME ?? os.homedir();
  const def = path.join(home, '.kube', 'config');
  if (fs.existsSync(def)) {
    kc.loadFromFile(def);
    return true;
  }
  return false;
}

function replaceCluster(kc: LeanKubeConfig, name: string, update: (c: Cluster) => Cluster): void {
  kc.loadFromOptions({
    clusters: kc.getClusters().map((c) => (c.name === name ? update(c) : c)),
    users: kc.getUsers(),
    contexts: kc.getContexts(),
    currentContext: kc.getCurrentContext(),
  });
}

function overrideServer(kc: LeanKubeConfig, master: string): void {
  const cur = kc.getCurrentCluster();
  if (!cur) return;
  replaceCluster(kc, cur.name, (c) => ({ ...c, server: master }));
}

/**
 * client-node refuses `http://` servers unless `skipTLSVerify` is set, although there is no TLS to
 * verify; set it so plain-HTTP servers (test fakes, in-cluster ports 80/8080/8001) work.
 */
function allowPlainHttp(kc: LeanKubeConfig): void {
  const cur = kc.getCurrentCluster();
  if (cur?.server.startsWith('http:') && !cur.skipTLSVerify) {
    replaceCluster(kc, cur.name, (c) => ({ ...c, skipTLSVerify: true }));
  }
}
