/**
 * A `ccm-kit build` bundle runs without node_modules, so what the runtime takes from client-node's whole package
 * (secure serving's delegated authentication, `--use-service-account-credentials`, typed clients) must reach
 * it through `loadClientNode()`, whose dynamic import the bundler follows (decision 0413). A vendor's typed client
 * (`ClientFactory.client(name, CoreV1Api)`) needs only light client-node modules and works without it.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundle } from '../src/commands/build.js';

const work = mkdtempSync(join(tmpdir(), 'ccm-kit-bundle-client-node-'));
const alone = join(work, 'alone');
const vendor = join(work, 'vendor');

/** Bundles a fixture and copies the bundle outside the repository (no node_modules above it). */
async function bundleAlone(fixture: string, to: string): Promise<void> {
  const out = join(import.meta.dirname, '..', `.tmp-bundle-${fixture}`);
  try {
    await bundle(join(import.meta.dirname, 'fixtures', `${fixture}.ts`), join(out, 'main.mjs'));
    cpSync(out, to, { recursive: true });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  await bundleAlone('client-node-entry', alone);
  await bundleAlone('typed-client-entry', vendor);
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

function runAlone(arg: string, dir = alone): string {
  const r = spawnSync(process.execPath, [join(dir, 'main.mjs'), arg], { cwd: dir, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

it('after loadClientNode(), clientNode() answers client-node from the bundle', () => {
  expect(runAlone('load')).toBe('server https://127.0.0.1:6443');
});

it('without it, clientNode() cannot find the package in a bundle (why the app calls loadClientNode first)', () => {
  expect(runAlone('no-load')).toMatch(/^error Cannot find module '@kubernetes\/client-node'/);
});

it("client-node's typed API is in a chunk next to the bundle, not in the module every start compiles", () => {
  expect(readFileSync(join(alone, 'main.mjs'), 'utf8')).not.toContain('CoreV1Api');
  const chunks = readdirSync(join(alone, 'chunks')).filter((f) => f.endsWith('.mjs'));
  expect(chunks.some((f) => readFileSync(join(alone, 'chunks', f), 'utf8').includes('CoreV1Api'))).toBe(true);
});

it("a vendor's bundled binary builds a typed client with its own CoreV1Api, without loadClientNode(), and reads with it over http:// (undici from its chunk)", () => {
  expect(runAlone('', vendor)).toBe('typed client true read n1');
});
