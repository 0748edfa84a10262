/**
 * Delegated authentication and authorization for the secure port, as the Go CCM's
 * `DelegatingAuthenticationOptions` / `DelegatingAuthorizationOptions` (k8s.io/apiserver, upstream `k8s.io/cloud-provider options/options.go`):
 * - a client certificate verified against `--client-ca-file` authenticates as CN (user) and O (groups); one
 *   the CA does not verify is rejected (401);
 * - authenticated users (not anonymous) are also in `system:authenticated`;
 * - a bearer token is checked with a TokenReview; results cached for `--authentication-token-webhook-cache-ttl`;
 * - otherwise the request is anonymous (`system:anonymous`, group `system:unauthenticated`);
 * - `--authorization-always-allow-paths` (exact paths) and the group `system:masters` are always allowed;
 * - anything else is authorized with a SubjectAccessReview for the non-resource path and the HTTP verb,
 *   cached for the authorized/unauthorized TTLs.
 */

import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { clientNode } from '@ccm-kit/runtime/internal';
import type { AuthenticationV1Api, AuthorizationV1Api, KubeConfig } from '@kubernetes/client-node';

/** An authenticated user. */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** The authentication outcome: a user, or `undefined` for a request that must be rejected with 401. */
export type AuthnResult = { user: UserInfo } | { error: string };

/** The delegation settings. TTLs in milliseconds. */
export interface DelegatedAuthOptions {
  /** Client for TokenReview; undefined disables bearer tokens (they get 401). */
  authenticationKubeConfig?: KubeConfig;
  /** Client for SubjectAccessReview; undefined forbids every path outside the always-allow list (except system:masters). */
  authorizationKubeConfig?: KubeConfig;
  alwaysAllowPaths: readonly string[];
  tokenCacheTtlMs: number;
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  /** True when the TLS server was configured with a client CA, so verified peer certificates identify users. */
  clientCertAuth: boolean;
}

interface Cached<T> {
  value: T;
  expires: number;
}

/** A tiny TTL cache with a size bound, so hostile traffic cannot grow memory without limit. */
class TtlCache<T> {
  readonly #map = new Map<string, Cached<T>>();
  constructor(readonly max = 4096) {}
  get(key: string): T | undefined {
    const e = this.#map.get(key);
    if (!e) return undefined;
    if (e.expires < Date.now()) {
      this.#map.delete(key);
      return undefined;
    }
    return e.value;
  }
  set(key: string, value: T, ttlMs: number): void {
    if (ttlMs <= 0) return;
    if (this.#map.size >= this.max) this.#map.delete(this.#map.keys().next().value as string);
    this.#map.set(key, { value, expires: Date.now() + ttlMs });
  }
}

const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/**
 * apiserver's `AuthenticatedGroupAdder`: every authenticated user except `system:anonymous` is in
 * `system:authenticated` (so RBAC bindings to that group apply to the secure port as to the API server).
 */
function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === ANONYMOUS.name || user.groups.includes('system:authenticated')) return user;
  return { ...user, groups: [...user.groups, 'system:authenticated'] };
}

/** Authenticates and authorizes requests to the secure port. */
export class DelegatedAuth {
  readonly #authn?: AuthenticationV1Api;
  readonly #authz?: AuthorizationV1Api;
  readonly #tokens = new TtlCache<AuthnResult>();
  readonly #decisions = new TtlCache<boolean>();
  readonly #alwaysAllow: Set<string>;

  constructor(readonly options: DelegatedAuthOptions) {
    // client-node's generated API is loaded only when a kubeconfig is given (not for --secure-port=0).
    this.#authn = options.authenticationKubeConfig?.makeApiClient(clientNode().AuthenticationV1Api);
    this.#authz = options.authorizationKubeConfig?.makeApiClient(clientNode().AuthorizationV1Api);
    this.#alwaysAllow = new Set(options.alwaysAllowPaths);
  }

  /** Authenticates a request: client certificate, then bearer token, then anonymous. */
  async authenticate(req: IncomingMessage): Promise<AuthnResult> {
    if (this.options.clientCertAuth) {
      const socket = req.socket as TLSSocket;
      const cert = socket.getPeerCertificate?.();
      const presented = cert !== undefined && cert !== null && Object.keys(cert).length > 0;
      if (presented && !socket.authorized) {
        // apiserver's x509 authenticator fails the request (401) rather than falling back to anonymous.
        return { error: `x509: ${String(socket.authorizationError ?? 'certificate not verified')}` };
      }
      if (presented && cert.subject?.CN) {
        const o = cert.subject.O;
        return {
          user: withAuthenticatedGroup({
            name: String(cert.subject.CN),
            groups: o === undefined ? [] : Array.isArray(o) ? o : [o],
          }),
        };
      }
    }
    const header = req.headers.authorization;
    if (header?.startsWith('Bearer ')) {
      const token = header.slice('Bearer '.length).trim();
      if (!this.#authn) return { error: 'token authentication is not configured' };
      const cached = this.#tokens.get(token);
      if (cached) return cached;
      const review = await this.#authn.createTokenReview({ body: { spec: { token } } });
      const result: AuthnResult =
        review.status?.authenticated && review.status.user?.username
          ? {
              user: withAuthenticatedGroup({
                name: review.status.user.username,
                uid: review.status.user.uid,
                groups: review.status.user.groups ?? [],
                extra: review.status.user.extra,
              }),
            }
          : { error: review.status?.error || 'invalid bearer token' };
      this.#tokens.set(token, result, this.options.tokenCacheTtlMs);
      return result;
    }
    return { user: ANONYMOUS };
  }

  /** Authorizes `user` for `verb` on the non-resource `path` (without the query). */
  async authorize(user: UserInfo, verb: string, path: string): Promise<boolean> {
    if (this.#alwaysAllow.has(path)) return true;
    if (user.groups.includes('system:masters')) return true;
    if (!this.#authz) return false;
    const key = JSON.stringify([user.name, user.groups, verb, path]);
    const cached = this.#decisions.get(key);
    if (cached !== undefined) return cached;
    const sar = await this.#authz.createSubjectAccessReview({
      body: {
        spec: {
          user: user.name,
          uid: user.uid,
          groups: user.groups,
          extra: user.extra,
          nonResourceAttributes: { path, verb },
        },
      },
    });
    const allowed = sar.status?.allowed === true;
    this.#decisions.set(key, allowed, allowed ? this.options.authorizedTtlMs : this.options.unauthorizedTtlMs);
    return allowed;
  }
}

/** The Kubernetes verb for an HTTP method on a non-resource path (apiserver's RequestInfo rules). */
export function nonResourceVerb(method: string | undefined): string {
  switch ((method ?? 'GET').toUpperCase()) {
    case 'POST':
      return 'post';
    case 'PUT':
      return 'put';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    case 'HEAD':
      return 'head';
    case 'OPTIONS':
      return 'options';
    default:
      return 'get';
  }
}
