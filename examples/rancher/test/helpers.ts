/** Shared pieces of the example's tests: a fast fake Cattle API, a provider on it, Nodes, and an ensure loop. */
import { findError, RetryError } from '@ccm-kit/cloud-provider';
import { RecordingLogger } from '@ccm-kit/testing';
import type { V1LoadBalancerStatus, V1Node } from '@kubernetes/client-node';
import { type FakeCattle, type FakeCattleOptions, startFakeCattle } from '../src/fake-cattle/index.js';
import { RancherCloud, type RancherCloudOptions } from '../src/index.js';

/** A fake whose lifecycle steps take 10 ms. */
export function startFast(options: FakeCattleOptions = {}): Promise<FakeCattle> {
  return startFakeCattle({ actionDelayMs: 10, endpointDelayMs: 10, ...options });
}

/** A provider on the fake, retrying after 10 ms, logging into `logger`. */
export function cloudOn(api: FakeCattle, options: RancherCloudOptions = {}) {
  const logger = new RecordingLogger();
  const cloud = new RancherCloud(
    { url: api.url, accessKey: api.accessKey, secretKey: api.secretKey },
    { logger, retryAfterMs: 10, ...options },
  );
  return { cloud, logger, lb: cloud.loadBalancer(), instances: cloud.instances() };
}

export function node(name: string, providerID?: string): V1Node {
  return { metadata: { name }, spec: providerID ? { providerID } : {} };
}

/** Calls ensure again after each RetryError's delay, as the service controller does; returns the status and the retries. */
export async function ensureUntilDone(
  ensure: () => Promise<V1LoadBalancerStatus>,
  limitMs = 5_000,
): Promise<{ status: V1LoadBalancerStatus; retries: string[] }> {
  const retries: string[] = [];
  const deadline = Date.now() + limitMs;
  for (;;) {
    try {
      return { status: await ensure(), retries };
    } catch (err) {
      const retry = findError(err, RetryError);
      if (!retry || Date.now() > deadline) throw err;
      retries.push(retry.message);
      await new Promise((r) => setTimeout(r, retry.retryAfterMs));
    }
  }
}

/** Waits until `cond` holds (polling every 5 ms, at most 2 s). */
export async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
