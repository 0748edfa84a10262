/**
 * The HTTPS server on `--secure-port` (default 10258): authentication, then authorization, then the route.
 * Follows the Go CCM's secure serving filter chain (upstream `k8s.io/cloud-provider app/controllermanager.go Run`): 401 when authentication fails,
 * 403 when authorization denies, both as `metav1.Status` JSON; health paths are in
 * `--authorization-always-allow-paths` by default.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@ccm-kit/runtime';
import { type DelegatedAuth, nonResourceVerb } from './delegated-auth.js';
import { type SniCertificate, sniCallback } from './sni.js';

/** A route's answer. */
export interface RouteResponse {
  status: number;
  body: string;
  contentType?: string;
}

/** Handles one path (the URL path without query); `query` holds the parsed query string. */
export type RouteHandler = (req: IncomingMessage, query: URLSearchParams) => Promise<RouteResponse> | RouteResponse;

/** Options for {@link startSecureServer}. */
export interface SecureServerOptions {
  bindAddress: string;
  /** TCP port; 0 picks a free port (the bound port is returned). */
  port: number;
  certPem: string;
  keyPem: string;
  /** PEM bundle of client CAs (`--client-ca-file`); enables client-certificate authentication. */
  clientCaPem?: string;
  /** Node.js TLS minimum (from `--tls-min-version`); default Node's (TLS 1.2). */
  minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  /** OpenSSL cipher list (from `--tls-cipher-suites`, see `nodeCipherList`). */
  ciphers?: string;
  /** OpenSSL group list (from `--tls-curve-preferences`, see `nodeCurveList`). */
  ecdhCurve?: string;
  /** Certificates chosen by server name (`--tls-sni-cert-key`); the default certificate otherwise. */
  sniCertificates?: readonly SniCertificate[];
  /** `--permit-port-sharing`: bind with SO_REUSEPORT. */
  reusePort?: boolean;
  /**
   * Authentication and authorization of every request; undefined serves every request as it comes (the webhook
   * port: upstream's webhook server, `k8s.io/cloud-provider app/webhooks.go`, has no authentication filter).
   */
  auth?: DelegatedAuth;
  /** Exact paths, or prefixes ending in `/` (for example `/healthz/`). */
  routes: Readonly<Record<string, RouteHandler>>;
  logger: Logger;
}

/** A running server. */
export interface RunningServer {
  readonly port: number;
  readonly server: Server;
  /** Stops accepting connections and closes idle ones; resolves when closed. */
  close(): Promise<void>;
}

function findRoute(routes: Readonly<Record<string, RouteHandler>>, path: string): RouteHandler | undefined {
  const exact = routes[path];
  if (exact) return exact;
  for (const [prefix, handler] of Object.entries(routes)) {
    if (prefix.endsWith('/') && path.startsWith(prefix)) return handler;
  }
  return undefined;
}

function send(res: ServerResponse, r: RouteResponse): void {
  res.writeHead(r.status, {
    'Content-Type': r.contentType ?? 'text/plain; charset=utf-8',
    'Cache-Control': 'no-cache, private',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(r.body);
}

/**
 * A `metav1.Status` failure as k8s.io/apiserver's filters write it (`responsewriters`): JSON, with `details: {}`
 * for Forbidden (from `apierrors.NewForbidden`) and none for Unauthorized.
 */
function statusResponse(code: 401 | 403, reason: 'Unauthorized' | 'Forbidden', message: string): RouteResponse {
  return {
    status: code,
    contentType: 'application/json',
    body: JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      ...(code === 403 ? { details: {} } : {}),
      code,
    }),
  };
}

/**
 * Starts the HTTPS server.
 * @throws the listen error (for example EADDRINUSE) when the port cannot be bound, or a TLS setting error
 *   (for example no cipher matched) from Node.js.
 */
export async function startSecureServer(opts: SecureServerOptions): Promise<RunningServer> {
  const shared = {
    ca: opts.clientCaPem,
    minVersion: opts.minVersion,
    ...(opts.ciphers ? { ciphers: opts.ciphers } : {}),
    ...(opts.ecdhCurve ? { ecdhCurve: opts.ecdhCurve } : {}),
  };
  const server = createServer(
    {
      ...shared,
      cert: opts.certPem,
      key: opts.keyPem,
      requestCert: opts.clientCaPem !== undefined,
      rejectUnauthorized: false,
      SNICallback: sniCallback(opts.sniCertificates ?? [], shared),
    },
    (req, res) => {
      void handle(req, res).catch((err) => {
        opts.logger.error(err, 'HTTP handler failed', { path: req.url });
        if (!res.headersSent) send(res, { status: 500, body: 'Internal Server Error\n' });
        else res.destroy();
      });
    },
  );

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://localhost');
    if (opts.auth && !(await authorized(opts.auth, req, res, url))) return;
    const route = findRoute(opts.routes, url.pathname);
    if (!route) {
      send(res, { status: 404, body: '404 page not found\n' });
      return;
    }
    send(res, await route(req, url.searchParams));
  }

  /** The filter chain's authentication, then authorization; false after answering 401 or 403. */
  async function authorized(auth: DelegatedAuth, req: IncomingMessage, res: ServerResponse, url: URL) {
    const authn = await auth.authenticate(req);
    if ('error' in authn) {
      opts.logger.v(4).info('Unable to authenticate the request', { path: url.pathname, err: authn.error });
      send(res, statusResponse(401, 'Unauthorized', 'Unauthorized'));
      return false;
    }
    const verb = nonResourceVerb(req.method);
    if (!(await auth.authorize(authn.user, verb, url.pathname))) {
      send(
        res,
        statusResponse(
          403,
          'Forbidden',
          `forbidden: User ${JSON.stringify(authn.user.name)} cannot ${verb} path ${JSON.stringify(url.pathname)}`,
        ),
      );
      return false;
    }
    return true;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: opts.port, host: opts.bindAddress, reusePort: opts.reusePort === true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  opts.logger.info('Serving securely', { address: `${opts.bindAddress}:${port}` });
  return {
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 1000).unref();
      }),
  };
}
