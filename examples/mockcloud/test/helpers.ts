/**
 * Test helpers: a real in-process mock API server, a fast-retrying client, Node/Service builders and a fake
 * Service patch client.
 */
import type { ServiceStatusClient } from '@ccm-kit/cloud-provider';
import { kubeletNode, loadBalancerService } from '@ccm-kit/testing';
import type { V1Node, V1Service, V1ServicePort } from '@kubernetes/client-node';
import { MockCloudApiServer, type MockCloudApiServerOptions } from '../src/api-server/index.js';
import { MockCloudClient, type MockCloudClientOptions } from '../src/client/index.js';
import { type MockCloudConfig, parseConfig } from '../src/provider/config.js';

export const TOKEN = 'test-token';

/** Starts a mock API server accepting {@link TOKEN}. */
export function startApi(options: MockCloudApiServerOptions = {}): Promise<MockCloudApiServer> {
  return MockCloudApiServer.start({ tokens: [TOKEN], ...options });
}

/** A client with short backoffs, so retry tests take milliseconds (plus any Retry-After). */
export function fastClient(api: MockCloudApiServer, options: Partial<MockCloudClientOptions> = {}): MockCloudClient {
  return new MockCloudClient({
    apiURL: api.url,
    token: TOKEN,
    requestTimeoutMs: 2_000,
    ...options,
    retry: { retries: 3, minDelayMs: 5, maxDelayMs: 20, ...options.retry },
  });
}

/** A validated config pointing at `api`, with fast retries. */
export function testConfig(api: MockCloudApiServer, extra = ''): MockCloudConfig {
  return parseConfig(
    `apiURL: ${api.url}\ntoken: ${TOKEN}\nclusterID: test-cluster\nretry: { retries: 2, minDelayMs: 5, maxDelayMs: 20 }\n${extra}`,
    {},
  );
}

/** A Node with a name, optional providerID and labels, and no taints (the kit's `kubeletNode`). */
export const node = (name: string, providerID?: string, labels: Record<string, string> = {}): V1Node =>
  kubeletNode(name, { labels, taints: [], ...(providerID !== undefined && { providerID }) });

/** The kit's `loadBalancerService`, named `web` unless given, with a fixed UID and `externalTrafficPolicy`. */
export function service(
  options: {
    uid?: string;
    name?: string;
    namespace?: string;
    annotations?: Record<string, string>;
    ports?: V1ServicePort[];
    externalTrafficPolicy?: 'Cluster' | 'Local';
    healthCheckNodePort?: number;
  } = {},
): V1Service {
  return loadBalancerService(options.name ?? 'web', {
    ...(options.namespace && { namespace: options.namespace }),
    uid: options.uid ?? '11111111-2222-3333-4444-555555555555',
    ...(options.annotations && { annotations: options.annotations }),
    ...(options.ports && { ports: options.ports }),
    spec: {
      externalTrafficPolicy: options.externalTrafficPolicy ?? 'Cluster',
      ...(options.healthCheckNodePort ? { healthCheckNodePort: options.healthCheckNodePort } : {}),
    },
  });
}

/** A Service patch client that records patches and can be told to fail. */
export class FakeServiceClient implements ServiceStatusClient {
  readonly patches: { namespace: string; name: string; patch: object }[] = [];
  /** How many of the next calls fail with a 500-like error. */
  failNext = 0;

  async patchServiceStatus(namespace: string, name: string, patch: object): Promise<V1Service> {
    if (this.failNext > 0) {
      this.failNext--;
      throw Object.assign(new Error('the server is currently unable to handle the request'), { code: 503 });
    }
    this.patches.push({ namespace, name, patch });
    return {};
  }
}
