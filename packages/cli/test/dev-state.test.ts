/**
 * `ccm-kit dev` hands the CCM a state directory that outlives its restarts ($CCM_KIT_DEV_STATE_DIR), so a fake
 * cloud inside the CCM process can keep its machines and load balancers across reloads.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventuallyValue } from '@ccm-kit/testing/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { DEV_STATE_DIR, devOptions } from '../src/commands/dev.js';
import { RestartingProcess } from '../src/dev/restarting-process.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ccm-kit-dev-state-'));
  dirs.push(dir);
  return dir;
}

describe('the dev state directory', () => {
  it('is .ccm-kit-dev/state under the project, kept from the last session only with --keep-state', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ ccmKit: { provider: 'rancher' } }));
    expect(await devOptions([], dir)).toMatchObject({ stateDir: join(dir, DEV_STATE_DIR), keepState: false });
    expect((await devOptions(['--keep-state'], dir)).keepState).toBe(true);
  });

  it('survives a restart of the CCM process: what the first process saved, the second one reads', async () => {
    const dir = tempDir();
    const state = join(dir, DEV_STATE_DIR);
    mkdirSync(state, { recursive: true });
    const lines: string[] = [];
    // A "fake cloud" that counts its starts in the state directory.
    const script = `const fs = require('fs'), p = require('path').join(process.env.CCM_KIT_DEV_STATE_DIR, 'starts');
      const n = (fs.existsSync(p) ? Number(fs.readFileSync(p, 'utf8')) : 0) + 1;
      fs.writeFileSync(p, String(n)); console.log('start ' + n); setInterval(() => {}, 1000);`;
    const proc = new RestartingProcess({
      cwd: dir,
      watchDir: dir,
      env: { ...process.env, CCM_KIT_DEV_STATE_DIR: state },
      command: [process.execPath, '-e', script],
      onLine: (l) => lines.push(l),
    });
    const until = async (line: string) => {
      await eventuallyValue(() => lines.includes(line), { what: line, timeoutMs: 10_000, intervalMs: 50 });
      expect(lines).toContain(line);
    };
    try {
      await proc.start();
      await until('start 1');
      await proc.restart('test');
      await until('start 2');
    } finally {
      await proc.close();
    }
  });
});
