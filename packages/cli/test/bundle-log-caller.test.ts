/**
 * Log lines of a `ccm-kit build` bundle name the source file and line of the log call, as klog's header does
 * for a Go binary, not the bundle's `main.mjs:<line>` (the caller table next to each bundle file, decision 0415).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundle } from '../src/commands/build.js';

const out = mkdtempSync(join(tmpdir(), 'ccm-kit-log-caller-'));

beforeAll(async () => {
  await bundle(join(import.meta.dirname, 'fixtures', 'log-caller-entry.ts'), join(out, 'main.mjs'));
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

const run = (...args: string[]) =>
  spawnSync(process.execPath, [join(out, 'main.mjs'), ...args], { cwd: out, encoding: 'utf8' });

it('writes a caller table next to the bundle', () => {
  expect(existsSync(join(out, 'main.mjs.callers.json'))).toBe(true);
});

it('text lines name the source file and line in the klog header', () => {
  const r = run();
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/^I\d{4} [\d:.]+ +\d+ log-caller-entry\.ts:5\] "from line 5"/m);
});

it('JSON lines carry the same caller', () => {
  const r = run('json');
  expect(JSON.parse(r.stderr.trim()).caller).toBe('fixtures/log-caller-entry.ts:5');
});

it('without the table the bundle names itself, as before', () => {
  rmSync(join(out, 'main.mjs.callers.json'));
  expect(run().stderr).toMatch(/ main\.mjs:\d+\] "from line 5"/);
});
