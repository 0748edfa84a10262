/** ccm-kit dev's process loop: build, run, and on a change under the watched directory build and restart. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { RestartingProcess } from '../src/dev/restarting-process.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Polls every 50 ms for up to 20 s, naming `what` on a time-out. */
const until = (what: string, fn: () => boolean) => eventuallyValue(fn, { what, timeoutMs: 20_000, intervalMs: 50 });

function project(build: string) {
  const dir = mkdtempSync(join(tmpdir(), 'ccm-kit-dev-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'version.txt'), 'v1');
  const lines: string[] = [];
  const proc = new RestartingProcess({
    cwd: dir,
    build,
    watchDir: dir,
    // Prints the version it was started with, then runs until stopped.
    command: [
      process.execPath,
      '-e',
      "console.log('running ' + require('fs').readFileSync('version.txt', 'utf8')); setInterval(() => {}, 1000)",
    ],
    onLine: (l) => lines.push(l),
  });
  return { dir, lines, proc };
}

describe('RestartingProcess (ccm-kit dev)', () => {
  it('builds and starts, then rebuilds and restarts when a watched file changes; the old process is stopped', async () => {
    const { dir, lines, proc } = project('echo built');
    try {
      await proc.start();
      await until('the first start', () => lines.includes('running v1'));
      expect(lines).toContain('built');
      writeFileSync(join(dir, 'version.txt'), 'v2');
      await until('the restart', () => lines.includes('running v2'));
      expect(proc.starts).toBe(2);
      // One "running again" line per restart, none for the first start.
      expect(lines.filter((l) => l.includes('running again'))).toEqual([
        expect.stringMatching(
          /^\[ccm-kit dev\] the CCM is running again \(start 2, pid \d+\) after: version\.txt changed$/,
        ),
      ]);
      expect(lines.some((l) => l.includes('version.txt changed: building (echo built) and restarting the CCM'))).toBe(
        true,
      );
      // The first process was stopped by the restart, not left behind: its exit is not reported as a crash.
      expect(lines.some((l) => l.includes('the CCM exited'))).toBe(false);
    } finally {
      await proc.close();
    }
  });

  it('keeps the running process when the build fails', async () => {
    const { dir, lines, proc } = project('test ! -f broken || (echo "error TS1005" && exit 1)');
    try {
      await proc.start();
      await until('the first start', () => lines.includes('running v1'));
      writeFileSync(join(dir, 'broken'), '');
      await until('the failed build', () => lines.some((l) => l.includes('the build failed; the running CCM is kept')));
      expect(lines).toContain('error TS1005');
      expect(proc.starts).toBe(1);
    } finally {
      await proc.close();
    }
  });
});
