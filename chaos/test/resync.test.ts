import { describe, expect, it } from 'vitest';
import type { ProcessRecord } from '../src/fleet.ts';
import { resyncFromAudit, resyncViolations } from '../src/resync.ts';

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
      { kind: 'apiserver-restart', ms: [1_200], firstMs: 1_200 },
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
    expect(resyncFromAudit(audit, [outage], processes, slotName)).toEqual([
      { kind: 'apiserver-restart', ms: [100], firstMs: 100 },
    ]);
  });

  it('reports a process whose informers do not come back within 60 s as undefined', () => {
    const audit = [
      entry('ccm-0', 'watch', 'nodes', 'ResponseStarted', 1_000),
      entry('ccm-0', 'watch', 'services', 'ResponseStarted', 1_000),
      entry('ccm-0', 'watch', 'nodes', 'ResponseStarted', 16_000),
    ].join('\n');
    expect(resyncFromAudit(audit, [outage], [proc(0, 0)], slotName)).toEqual([
      { kind: 'apiserver-restart', ms: [undefined], firstMs: undefined },
    ]);
  });

  describe('when no CCM runs through the restart (the leader loses the lease and exits, standbys have no informers)', () => {
    // ccm-0 leads with informers in sync, then exits 2 s after the server is back; ccm-1 wins the lease at 22 s.
    const before = [
      entry('ccm-0', 'watch', 'nodes', 'ResponseStarted', 1_000),
      entry('ccm-0', 'watch', 'services', 'ResponseStarted', 1_000),
    ];
    const processes = [proc(0, 0, 17_000), proc(1, 0)];

    it("measures the first CCM whose informers are in sync again (here the new leader's)", () => {
      const audit = [
        ...before,
        entry('ccm-1', 'list', 'nodes', 'ResponseComplete', 22_000),
        entry('ccm-1', 'watch', 'services', 'ResponseStarted', 22_500),
      ].join('\n');
      const resync = resyncFromAudit(audit, [outage], processes, slotName);
      expect(resync).toEqual([{ kind: 'apiserver-restart', ms: [], firstMs: 7_500 }]);
      expect(resyncViolations(resync)).toEqual([]);
    });

    it('fails when no CCM has both informers in sync within 60 s', () => {
      const audit = [...before, entry('ccm-1', 'list', 'nodes', 'ResponseComplete', 22_000)].join('\n');
      const resync = resyncFromAudit(audit, [outage], processes, slotName);
      expect(resync).toEqual([{ kind: 'apiserver-restart', ms: [], firstMs: undefined }]);
      expect(resyncViolations(resync)).toEqual([
        {
          invariant: 'informers in sync after an API server restart',
          object: 'apiserver-restart',
          detail: 'no CCM had its Node and Service informers in sync within 60 s of the API server answering',
        },
      ]);
    });
  });
});
