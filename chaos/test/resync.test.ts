import { describe, expect, it } from 'vitest';
import type { ProcessRecord } from '../src/fleet.ts';
import { resyncFromAudit } from '../src/resync.ts';

const at = (ms: number) => new Date(ms).toISOString();
const entry = (user: string, verb: string, resource: string, stage: string, ms: number, code = 200) =>
  JSON.stringify({
    stage,
    verb,
    user: { username: user },
    objectRef: { resource },
    responseStatus: { code },
    stageTimestamp: at(ms),
  });
const proc = (slot: number, startedAt: number, exitedAt?: number): ProcessRecord =>
  ({
    slot,
    pid: 1,
    startedAt,
    identity: `id-${slot}`,
    ...(exitedAt !== undefined ? { exitedAt } : {}),
  }) as ProcessRecord;
const slotName = (slot: number) => `ccm-${slot}`;

describe('resyncFromAudit', () => {
  const outage = { kind: 'apiserver-restart', t: 10_000, endedAt: 15_000 };

  it('measures from the server back to the later of the Node and Service informers starting again', () => {
    const audit = [
      entry('ccm-0', 'watch', 'nodes', 'ResponseStarted', 1_000),
      entry('ccm-0', 'list', 'services', 'ResponseComplete', 1_100),
      entry('ccm-0', 'watch', 'nodes', 'ResponseStarted', 15_400),
      entry('ccm-0', 'watch', 'services', 'ResponseStarted', 14_000, 500), // failed: not in sync
      entry('ccm-0', 'watch', 'services', 'ResponseStarted', 16_200),
      entry('ccm-0', 'watch', 'services', 'ResponseComplete', 17_000), // a watch ending is not a start
    ].join('\n');
    expect(resyncFromAudit(audit, [outage], [proc(0, 0)], slotName)).toEqual([
      { kind: 'apiserver-restart', ms: [1_200] },
    ]);
  });

  it('leaves out standbys without informers and processes that exit soon after (a leader that lost the lease)', () => {
    const audit = [
      entry('ccm-0', 'watch', 'nodes', 'ResponseStarted', 1_000),
      entry('ccm-0', 'watch', 'services', 'ResponseStarted', 1_000),
      entry('ccm-2', 'watch', 'nodes', 'ResponseStarted', 1_000),
      entry('ccm-2', 'watch', 'services', 'ResponseStarted', 1_000),
      entry('ccm-2', 'watch', 'nodes', 'ResponseStarted', 15_100),
      entry('ccm-2', 'watch', 'services', 'ResponseStarted', 15_100),
    ].join('\n');
    const processes = [proc(0, 0, 20_000), proc(1, 0), proc(2, 0)];
    expect(resyncFromAudit(audit, [outage], processes, slotName)).toEqual([{ kind: 'apiserver-restart', ms: [100] }]);
  });

  it('reports a process whose informers do not come back within 60 s as undefined', () => {
    const audit = [
      entry('ccm-0', 'watch', 'nodes', 'ResponseStarted', 1_000),
      entry('ccm-0', 'watch', 'services', 'ResponseStarted', 1_000),
      entry('ccm-0', 'watch', 'nodes', 'ResponseStarted', 16_000),
    ].join('\n');
    expect(resyncFromAudit(audit, [outage], [proc(0, 0)], slotName)).toEqual([
      { kind: 'apiserver-restart', ms: [undefined] },
    ]);
  });
});
