import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deposedExits, deposedExitViolations } from '../src/deposed.ts';
import type { FaultKind, FaultRecord } from '../src/faults.ts';
import type { ProcessRecord } from '../src/fleet.ts';
import type { Term } from '../src/lease-history.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chaos-deposed-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A leader stopped at 10 s, resumed at 20 s after ccm-b took the lease at 17 s, that never exited. */
async function stuckLeader(kind: FaultKind) {
  const logPath = join(dir, `${kind}.log`);
  await writeFile(logPath, 'I1126 14:00:55.160685   27446 x.ts:1] "some line"\n');
  const record: ProcessRecord = { slot: 0, pid: 1, startedAt: 0, identity: 'ccm-a', lines: 120, logPath };
  const fault: FaultRecord = { kind, t: 10_000, endedAt: 20_000, identity: 'ccm-a', linesAtResume: 100 };
  const terms: Term[] = [
    { holder: 'ccm-a', start: 0, end: 10_000 },
    { holder: 'ccm-b', start: 17_000, end: 30_000 },
  ];
  return deposedExits([fault], terms, (id) => (id === 'ccm-a' ? record : undefined));
}

describe('the "deposed leader exits cleanly" check', () => {
  it.each(['leader-sigstop', 'orphan-force-delete', 'orphan-class-change'] as const)(
    'checks the leader stopped by a %s fault (every SIGSTOP during which another replica took the lease)',
    async (kind) => {
      const exits = await stuckLeader(kind);
      expect(exits).toHaveLength(1);
      expect(exits.flatMap(deposedExitViolations).map((v) => v.detail)).toEqual([
        'did not exit',
        'no "leaderelection lost" line',
      ]);
    },
  );

  it('leaves out faults that stopped no process (a SIGKILL, a skipped fault)', async () => {
    expect(await stuckLeader('leader-sigkill')).toEqual([]);
  });
});
