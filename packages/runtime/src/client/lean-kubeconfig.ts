/**
 * A kubeconfig without client-node's generated API tree: the loading, lookup and authentication parts
 * of client-node's `KubeConfig` (`src/config.ts`) with the same semantics, built from its light
 * modules (`config_types`, `exec_auth`, `file_auth`; see `client-node-parts.ts`) and `yaml`.
 *
 * Authentication, as `KubeConfig.applySecurityAuthentication`: `Impersonate-User` from `as`; basic
 * auth from `username`/`password`; an exec plugin (`user.exec` or an `exec` auth provider; credentials
 * cached until their `expirationTimestamp`); a token file auth provider (the in-cluster service
 * account token, re-read every 60 s as client-go does); a `token` (or `token-file`, read at load)
 * overrides both. Any other auth provider (`oidc`, `azure`, `gcp`) is delegated to a full client-node
 * `KubeConfig`, loaded on first use, as are {@link LeanKubeConfig.makeApiClient} and
 * {@link LeanKubeConfig.toKubeConfig}. Decision 0030.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { ApiType, Cluster, ConfigOptions, Context, KubeConfig, User } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { clientNode, ExecAuth, FileAuth, newClusters, newContexts, newUsers } from './client-node-parts.js';

/** What authentication writes to: headers (and, from client-node's own `KubeConfig`, a dispatcher that ccm-kit ignores). */
export interface AuthRequest {
  /** Sets one request header (`Authorization`). */
  setHeaderParam(key: string, value: string): void;
  /**
   * Set by client-node's own `KubeConfig` for client certificates; ccm-kit's transport ignores it (it builds its
   * dispatcher from the kubeconfig).
   */
  setDispatcher?(dispatcher: never): void;
}

/**
 * What the runtime reads from a kubeconfig: client-node's `KubeConfig` and {@link LeanKubeConfig} both
 * satisfy it.
 */
export interface KubeConfigLike {
  /** Every context of the kubeconfig. */
  getContexts(): Context[];
  /** Every cluster of the kubeconfig. */
  getClusters(): Cluster[];
  /** Every user of the kubeconfig. */
  getUsers(): User[];
  /** The name of the current context (`current-context`). */
  getCurrentContext(): string;
  /** The cluster of the current context, or `null` when there is none. */
  getCurrentCluster(): Cluster | null;
  /** The user of the current context, or `null` when there is none. */
  getCurrentUser(): User | null;
  /** Adds the current user's credentials to a request. @throws when an exec plugin or token file fails. */
  applySecurityAuthentication(request: AuthRequest): Promise<void>;
}

const serviceAccountRoot = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Auth providers handled here; others go to client-node's `KubeConfig`. */
function isLeanAuth(user: User): boolean {
  const p = user.authProvider as { name?: string; config?: Record<string, unknown> } | undefined;
  if (!p) return true;
  return p.name === 'exec' || p.name === 'tokenFile' || !!p.config?.exec || !!p.config?.tokenFile;
}

/**
 * A kubeconfig with client-node's `KubeConfig` loading rules (same `Cluster`/`User`/`Context` shapes, relative paths
 * resolved) that authenticates bearer tokens, token files and exec plugins itself, and hands other auth providers to
 * client-node's `KubeConfig`, loaded only then. {@link loadKubeConfig} returns one.
 */
export class LeanKubeConfig implements KubeConfigLike {
  /** The clusters, as client-node's `KubeConfig.clusters`. */
  clusters: Cluster[] = [];
  /** The users, as client-node's `KubeConfig.users`. */
  users: User[] = [];
  /** The contexts, as client-node's `KubeConfig.contexts`. */
  contexts: Context[] = [];
  /** The name of the current context. */
  currentContext = '';
  readonly #exec = new ExecAuth();
  readonly #file = new FileAuth();
  #full: KubeConfig | undefined;

  /** Every context. */
  getContexts(): Context[] {
    return this.contexts;
  }
  /** Every cluster. */
  getClusters(): Cluster[] {
    return this.clusters;
  }
  /** Every user. */
  getUsers(): User[] {
    return this.users;
  }
  /** The name of the current context. */
  getCurrentContext(): string {
    return this.currentContext;
  }
  /** Switches the current context (by name; not checked until it is used). */
  setCurrentContext(name: string): void {
    this.currentContext = name;
    this.#full = undefined;
  }
  /** The context named `name`, or `null`. */
  getContextObject(name: string | undefined): Context | null {
    return findNamed(this.contexts, name, 'context');
  }
  /** The cluster named `name`, or `null`. */
  getCluster(name: string): Cluster | null {
    return findNamed(this.clusters, name, 'cluster');
  }
  /** The user named `name`, or `null`. */
  getUser(name: string): User | null {
    return findNamed(this.users, name, 'user');
  }
  /** The cluster of the current context, or `null`. */
  getCurrentCluster(): Cluster | null {
    const ctx = this.getContextObject(this.currentContext);
    return ctx ? this.getCluster(ctx.cluster) : null;
  }
  /** The user of the current context, or `null`. */
  getCurrentUser(): User | null {
    const ctx = this.getContextObject(this.currentContext);
    return ctx ? findNamed(this.users, ctx.user, 'user') : null;
  }

  /** Loads a kubeconfig file; relative certificate paths are resolved against its directory. */
  loadFromFile(file: string, opts?: Partial<ConfigOptions>): void {
    this.loadFromString(fs.readFileSync(file, 'utf-8'), opts);
    const dir = path.dirname(file);
    const abs = (f: string | undefined) => (f && !path.isAbsolute(f) ? path.join(dir, f) : f);
    for (const c of this.clusters) if (c.caFile) (c as { caFile?: string }).caFile = abs(c.caFile);
    for (const u of this.users) {
      if (u.certFile) (u as { certFile?: string }).certFile = abs(u.certFile);
      if (u.keyFile) (u as { keyFile?: string }).keyFile = abs(u.keyFile);
    }
  }

  /** Parses kubeconfig YAML. @throws on invalid YAML, or an entry missing its name/cluster/server (unless `opts.onInvalidEntry` is `filter`). */
  loadFromString(text: string, opts?: Partial<ConfigOptions>): void {
    const obj = (parseYaml(text) ?? {}) as Record<string, unknown>;
    this.clusters = newClusters(obj.clusters, opts);
    this.contexts = newContexts(obj.contexts, opts);
    this.users = newUsers(obj.users, opts);
    this.currentContext = obj['current-context'] as string;
    this.#full = undefined;
  }

  /**
   * Replaces the whole configuration with these clusters, users and contexts (client-node
   * `KubeConfig.loadFromOptions`).
   */
  loadFromOptions(options: { clusters: Cluster[]; users: User[]; contexts: Context[]; currentContext: string }): void {
    this.clusters = options.clusters;
    this.users = options.users;
    this.contexts = options.contexts;
    this.currentContext = options.currentContext;
    this.#full = undefined;
  }

  /**
   * A configuration of one cluster and one user, in a context named `loaded-context` (client-node
   * `KubeConfig.loadFromClusterAndUser`).
   */
  loadFromClusterAndUser(cluster: Cluster, user: User): void {
    this.loadFromOptions({
      clusters: [cluster],
      users: [user],
      contexts: [{ name: 'loaded-context', cluster: cluster.name, user: user.name }],
      currentContext: 'loaded-context',
    });
  }

  /**
   * The in-cluster configuration from `KUBERNETES_SERVICE_HOST`/`_PORT` and the service account files
   * under `pathPrefix` (client-node `loadFromCluster`: http for ports 80, 8080 and 8001).
   */
  loadFromCluster(pathPrefix = ''): void {
    const host = process.env.KUBERNETES_SERVICE_HOST;
    const port = process.env.KUBERNETES_SERVICE_PORT;
    const scheme = port === '80' || port === '8080' || port === '8001' ? 'http' : 'https';
    const serverHost = host && net.isIPv6(host) ? `[${host}]` : host;
    const nsFile = `${pathPrefix}${serviceAccountRoot}/namespace`;
    const namespace = fs.existsSync(nsFile) ? fs.readFileSync(nsFile, 'utf-8') : undefined;
    this.loadFromOptions({
      clusters: [
        {
          name: 'inCluster',
          caFile: `${pathPrefix}${serviceAccountRoot}/ca.crt`,
          server: `${scheme}://${serverHost}:${port}`,
          skipTLSVerify: false,
        },
      ],
      users: [
        {
          name: 'inClusterUser',
          authProvider: { name: 'tokenFile', config: { tokenFile: `${pathPrefix}${serviceAccountRoot}/token` } },
        },
      ],
      contexts: [
        { name: 'inClusterContext', cluster: 'inCluster', user: 'inClusterUser', ...(namespace ? { namespace } : {}) },
      ],
      currentContext: 'inClusterContext',
    });
  }

  /** Adds another config's entries (duplicates throw); takes its current context unless `preserveContext`. */
  mergeConfig(other: KubeConfigLike, preserveContext = false): void {
    if (!preserveContext && other.getCurrentContext()) this.currentContext = other.getCurrentContext();
    for (const c of other.getClusters()) addNamed(this.clusters, c, 'cluster');
    for (const u of other.getUsers()) addNamed(this.users, u, 'user');
    for (const c of other.getContexts()) addNamed(this.contexts, c, 'context');
    this.#full = undefined;
  }

  /** The authenticator's name, as client-node's `KubeConfig.getName`. */
  getName(): string {
    return 'kubeconfig authentication';
  }

  /**
   * Adds the current user's credentials to a request: a bearer token (given, from a token file or from an exec plugin),
   * or through client-node's `KubeConfig` for other auth providers. @throws Error when an exec plugin or token file
   * fails.
   */
  async applySecurityAuthentication(request: AuthRequest): Promise<void> {
    const user = this.getCurrentUser();
    if (!user) return;
    if (!isLeanAuth(user)) {
      await this.toKubeConfig().applySecurityAuthentication(request as never);
      return;
    }
    if (user.username) {
      request.setHeaderParam(
        'Authorization',
        `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`,
      );
    }
    const opts: { headers: Record<string, string> } = { headers: {} };
    if (user.impersonateUser != null) opts.headers['Impersonate-User'] = user.impersonateUser;
    if (this.#exec.isAuthProvider(user)) await this.#exec.applyAuthentication(user, opts as never);
    else if (this.#file.isAuthProvider(user)) await this.#file.applyAuthentication(user, opts as never);
    if (user.token) opts.headers.Authorization = `Bearer ${user.token}`;
    for (const [k, v] of Object.entries(opts.headers)) request.setHeaderParam(k, `${v}`);
  }

  /** client-node's `KubeConfig` with the same clusters, users and contexts (loads client-node). */
  toKubeConfig(): KubeConfig {
    if (!this.#full) {
      const kc = new (clientNode().KubeConfig)();
      kc.loadFromOptions({
        clusters: this.clusters,
        users: this.users,
        contexts: this.contexts,
        currentContext: this.currentContext,
      });
      this.#full = kc;
    }
    return this.#full;
  }

  /** A typed client as `KubeConfig.makeApiClient` (loads client-node). */
  makeApiClient<T extends ApiType>(api: new (config: never) => T): T {
    return this.toKubeConfig().makeApiClient(api as never) as T;
  }
}

/** client-node `findObject`: the entry named `name`, or its nested `key` object when it has one. */
function findNamed<T extends { name: string }>(list: T[] | undefined, name: string | undefined, key: string): T | null {
  for (const o of list ?? []) {
    if (o.name !== name) continue;
    const nested = (o as Record<string, unknown>)[key] as T | undefined;
    if (nested) {
      nested.name = o.name;
      return nested;
    }
    return o;
  }
  return null;
}

function addNamed<T extends { name: string }>(list: T[], item: T, what: string): void {
  if (list.some((x) => x.name === item.name)) throw new Error(`Duplicate ${what}: ${item.name}`);
  list.push(item);
}

/** client-node's `KubeConfig` for `kc`: itself, or a {@link LeanKubeConfig}'s conversion (loads client-node). */
export function asClientNodeKubeConfig(kc: KubeConfigLike): KubeConfig {
  return kc instanceof LeanKubeConfig ? kc.toKubeConfig() : (kc as KubeConfig);
}
