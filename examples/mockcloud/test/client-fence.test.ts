/**
 * Lease fencing in the provider's client (ccm-kit decision 0050): while the process' lease fence is closed, no
 * request reaches the cloud, also not a retry of a call that started before.
 */
import { isLeaseFencedError, type LeaseFence } from '@ccm-kit/runtime/leader-election';
import { setProcessLeaseFence } from '@ccm-kit/runtime/internal';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import { afterEach, expect, it } from 'vitest';
import type { MockCloudApiServer } from '../src/api-server/index.js';
import { fastClient, startApi } from './helpers.js';

let api: MockCloudApiServer | undefined;
afterEach(async () => {
  setProcessLeaseFence(undefined);
  await api?.close();
});

function fence(state: { left: number }): LeaseFence {
  return { isFenced: () => state.left <= 0, validForMs: () => state.left, describe: () => 'kube-system/ccm' };
}

it('refuses every request while fenced, and sends again once the fence opens', async () => {
  api = await startApi();
  api.state.addServer({ name: 'a' });
  const state = { left: 0 };
  setProcessLeaseFence(fence(state));
  const client = fastClient(api);
  const err = await client.listServers().catch((e: unknown) => e);
  expect(isLeaseFencedError(err)).toBe(true);
  expect((err as Error).message).toMatch(/^cloud request GET \/servers refused/);
  expect(api.requests()).toEqual([]);
  state.left = 60_000;
  expect((await client.listServers()).map((s) => s.name)).toEqual(['a']);
});

it('a call retrying after a 503 stops at the fence instead of sending its retry', async () => {
  api = await startApi();
  api.injectFault({ status: 503, count: 1 });
  const state = { left: 60_000 };
  setProcessLeaseFence(fence(state));
  const client = fastClient(api, { retry: { retries: 3, minDelayMs: 50, maxDelayMs: 50 } });
  const call = client.listServers().catch((e: unknown) => e);
  await eventuallyValue(() => api!.requests().length > 0, { timeoutMs: 5_000, intervalMs: 5 });
  state.left = 0; // the process is deposed while the call waits to retry
  expect(isLeaseFencedError(await call)).toBe(true);
  expect(api.requests().map((r) => r.status)).toEqual([503]);
});

it('a request that passed the per-request check is still refused as it is written once the fence has closed', async () => {
  api = await startApi();
  api.state.addServer({ name: 'a' });
  // The early check (validForMs) sees an open fence; by the time the request is written (isFenced) the replica
  // has been deposed — as when the process is paused between the check and the write.
  setProcessLeaseFence({ isFenced: () => true, validForMs: () => 60_000, describe: () => 'kube-system/ccm' });
  const client = fastClient(api, { retry: { retries: 3, minDelayMs: 10, maxDelayMs: 10 } });
  const err = await client.listServers().catch((e: unknown) => e);
  expect(isLeaseFencedError(err)).toBe(true);
  expect((err as Error).message).toMatch(/^cloud request GET \/.*servers refused/);
  expect(api.requests()).toEqual([]);
});
