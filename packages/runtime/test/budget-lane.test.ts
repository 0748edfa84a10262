/** The cloud lane and controller context: carried through asynchronous work, nested, absent outside. */
import { describe, expect, it } from 'vitest';
import {
  type CloudBudgetCharge,
  currentCloudController,
  currentCloudLane,
  onCloudBudgetCharge,
  withCloudController,
  withCloudLane,
} from '../src/budget/index.js';
import { publishCloudBudgetCharge } from '../src/budget/charge.js';

describe('withCloudLane', () => {
  it('is undefined outside any lane', () => {
    expect(currentCloudLane()).toBeUndefined();
    expect(currentCloudController()).toBeUndefined();
  });

  it('carries the lane through awaits and timers, and returns what fn returns', async () => {
    const seen = await withCloudLane('periodic', async () => {
      await new Promise((r) => setTimeout(r, 1));
      const inTimer = await new Promise((r) => setTimeout(() => r(currentCloudLane()), 1));
      return [currentCloudLane(), inTimer];
    });
    expect(seen).toEqual(['periodic', 'periodic']);
    expect(currentCloudLane()).toBeUndefined();
  });

  it('nests: the inner lane wins for its extent, the controller is kept', async () => {
    await withCloudController('service-lb-controller', () =>
      withCloudLane('hosts', async () => {
        const inner = await withCloudLane('user', async () => [currentCloudLane(), currentCloudController()]);
        expect(inner).toEqual(['user', 'service-lb-controller']);
        expect(currentCloudLane()).toBe('hosts');
      }),
    );
  });

  it('keeps concurrent contexts apart', async () => {
    const run = (lane: 'user' | 'periodic', ms: number) =>
      withCloudLane(lane, async () => {
        await new Promise((r) => setTimeout(r, ms));
        return currentCloudLane();
      });
    expect(await Promise.all([run('user', 5), run('periodic', 1)])).toEqual(['user', 'periodic']);
  });

  it('rethrows what fn throws', () => {
    expect(() =>
      withCloudLane('user', () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
  });
});

describe('onCloudBudgetCharge', () => {
  it('delivers charges until unsubscribed', () => {
    const got: CloudBudgetCharge[] = [];
    const off = onCloudBudgetCharge((c) => got.push(c));
    const charge: CloudBudgetCharge = { lane: 'user', controller: 'x', operation: 'op', waitedMs: 3 };
    publishCloudBudgetCharge(charge);
    off();
    publishCloudBudgetCharge(charge);
    expect(got).toEqual([charge]);
  });
});
