import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MockCloudApiServer } from '@ccm-kit/example-mockcloud/api-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProcessRecord } from '../src/fleet.ts';
import { collectorDeletions, collectorViolations } from '../src/orphans.ts';
import type { Workload } from '../src/workload.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chaos-orphans-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const line = (lb: string, svc: string, uid: string) =>
  `I1126 14:00:55.160685   27446 controller.ts:231] "Deleted orphaned load balancer" logger="cloud-controller-manager/service-lb-gc-controller" loadBalancer="${lb}" service="chaos/${svc}" uid="${uid}"`;

describe('the collector invariant', () => {
  it('reads the deletions from the CCM logs with the time of their DELETE in the cloud', async () => {
    const logPath = join(dir, 'ccm-0-0.log');
    await writeFile(logPath, [line('lb-1', 'svc-1', 'u1'), 'I1126 other line', line('lb-2', 'svc-2', 'u2')].join('\n'));
    const cloud = {
      requests: () => [
        { method: 'DELETE', path: '/v1/load_balancers/lb-1', status: 204, time: 5_000 },
        { method: 'DELETE', path: '/v1/load_balancers/lb-2', status: 503, time: 6_000 },
      ],
    } as unknown as MockCloudApiServer;
    const got = await collectorDeletions([{ logPath } as ProcessRecord], cloud);
    expect(got).toEqual([
      { t: 5_000, loadBalancer: 'lb-1', service: 'chaos/svc-1', uid: 'u1' },
      { t: undefined, loadBalancer: 'lb-2', service: 'chaos/svc-2', uid: 'u2' },
    ]);
  });

  it('passes a deletion after the harness deleted the Service, fails one whose Service exists or was deleted later', () => {
    const workload = {
      serviceDeletedAt: new Map([
        ['svc-1', 1_000],
        ['svc-3', 9_000],
      ]),
    } as unknown as Workload;
    const deletions = [
      { t: 5_000, loadBalancer: 'lb-1', service: 'chaos/svc-1', uid: 'u1' },
      { t: 5_000, loadBalancer: 'lb-2', service: 'chaos/svc-2', uid: 'u2' },
      { t: 5_000, loadBalancer: 'lb-3', service: 'chaos/svc-3', uid: 'u3' },
      { t: 5_000, loadBalancer: 'lb-4', service: 'chaos/svc-1', uid: 'u4' },
    ];
    const v = collectorViolations(deletions, workload, new Set(['u4']));
    expect(v.map((x) => [x.object, x.detail.replace(/ at .*?;/, ';')])).toEqual([
      ['svc-2', 'lb-2 (Service UID u2) deleted; Service never deleted by the harness'],
      [
        'svc-3',
        expect.stringMatching(/^lb-3 \(Service UID u3\) deleted; Service deleted at 1970-01-01T00:00:09.000Z$/),
      ],
      ['svc-1', 'lb-4 (Service UID u4) deleted; Service still exists'],
    ]);
  });
});
