/**
 * The client-node `Configuration` a typed API client (`CoreV1Api`, ...) is built with, sending through the shared
 * transport. It is the object client-node's `createConfiguration` (`dist/gen/configuration.js`) returns for these
 * parameters, built here because that module imports its default HTTP library, whose module evaluates all of undici
 * (5–7 MiB of a small CCM's peak, bench/results/2026-11-29-start-path.md), and a ccm-kit client never uses it.
 * A test (`runtime/test/lean-kubeconfig.test.ts`, "client-node-parts") compares the two, so a client-node upgrade
 * that changes `createConfiguration` fails there.
 */
import type { Configuration, HttpLibrary, RequestContext, SecurityAuthentication } from '@kubernetes/client-node';
import { configureAuthMethods, ServerConfiguration } from './client-node-parts.js';

/**
 * The `Configuration` of a typed API client (what `createConfiguration` makes for these parameters).
 * @param server the API server's base URL, without a trailing slash (the `baseServer`).
 * @param httpApi how requests are sent (`RestTransport.httpLibrary`).
 * @param auth what adds credentials to each request (the kubeconfig, or a service account's token); the generated
 *   API calls only its `applySecurityAuthentication`.
 */
export function typedConfiguration(
  server: string,
  httpApi: HttpLibrary,
  auth: { applySecurityAuthentication(ctx: RequestContext): void | Promise<void> },
): Configuration {
  return {
    baseServer: new ServerConfiguration(server, {}),
    httpApi,
    middleware: [],
    authMethods: configureAuthMethods({ default: auth as SecurityAuthentication }),
  };
}
