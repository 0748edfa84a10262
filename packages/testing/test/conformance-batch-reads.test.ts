/**
 * The batch-read checks (instancesV2/batch-*): FakeCloud with listInstanceStates (one machine per page, so
 * the listing takes several pages) passes them; a listing that disagrees with the per-Node answers, or that
 * answers an empty page during an outage, fails the check written for it.
 */
import { FakeCloud, planProviderConformance, type ProviderFixture } from '@ccm-kit/testing';
import { describeProviderConformance } from '@ccm-kit/testing/vitest';
import { describe, expect, it } from 'vitest';
import { fakeCloudFixture } from './fake-cloud-fixture.js';

function batchFixture(change?: (cloud: FakeCloud) => void): ProviderFixture & { cloud: FakeCloud } {
  const fixture = fakeCloudFixture();
  fixture.cloud.instanceStatePageSize = 1;
  change?.(fixture.cloud);
  return fixture;
}

describeProviderConformance({
  name: 'FakeCloud (batch reads)',
  setup: () => batchFixture(),
  facets: ['instancesV2', 'instances', 'zones'],
});

async function runCheck(id: string, setup: () => ProviderFixture): Promise<unknown> {
  const plan = await planProviderConformance({ name: id, setup, timeouts: { callMs: 500 } });
  const check = plan.checks.find((c) => c.id === id);
  if (!check) throw new Error(`no check ${id}`);
  return check.run().then(
    () => undefined,
    (err: unknown) => err,
  );
}

describe('batch-read checks', () => {
  it('are planned only when the facet has listInstanceStates, and the coverage says so', async () => {
    const without = await planProviderConformance({ name: 'per Node', setup: fakeCloudFixture });
    expect(without.checks.map((c) => c.id).filter((id) => id.includes('batch'))).toEqual([]);
    const withBatch = await planProviderConformance({ name: 'batch', setup: () => batchFixture() });
    expect(withBatch.checks.map((c) => c.id).filter((id) => id.includes('batch'))).toEqual([
      'instancesV2/batch-agrees',
      'instancesV2/batch-outage',
      'instancesV2/batch-abort',
    ]);
    expect(withBatch.coverage.batchReads).toBe(true);
  });

  it('batch-agrees fails when the listing says a machine is shut down and instanceShutdown does not', async () => {
    const err = await runCheck('instancesV2/batch-agrees', () =>
      batchFixture((cloud) => {
        const real = cloud.instanceShutdown.bind(cloud);
        cloud.instanceShutdown = async (node, signal) => !(await real(node, signal));
      }),
    );
    expect(String(err)).toMatch(
      /listInstanceStates says existingNode .* has shutdown false, instanceShutdown says true/,
    );
  });

  it('batch-agrees fails when a gone machine is listed', async () => {
    const err = await runCheck('instancesV2/batch-agrees', () =>
      batchFixture((cloud) => {
        const list = cloud.listInstanceStates!;
        Object.defineProperty(cloud, 'listInstanceStates', {
          value: async (token: string | undefined, signal?: AbortSignal) => {
            const page = await list(token, signal);
            if (page.nextPageToken) return page;
            const gone = { providerID: 'fake://i-gone', metadata: {}, shutdown: false };
            return { instances: [...page.instances, gone] };
          },
        });
      }),
    );
    expect(String(err)).toMatch(/lists missingNode's providerID "fake:\/\/i-gone"/);
  });

  it('batch-outage fails when the listing answers an empty page while the cloud is down', async () => {
    const err = await runCheck('instancesV2/batch-outage', () =>
      batchFixture((cloud) => {
        Object.defineProperty(cloud, 'listInstanceStates', { value: async () => ({ instances: [] }) });
      }),
    );
    expect(String(err)).toMatch(/listInstanceStates resolved .* while the cloud API was failing/);
  });
});
