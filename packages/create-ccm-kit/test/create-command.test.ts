/**
 * The `create-ccm-kit` command as `npm create` runs it (dist/main.js, no terminal): flags only, the defaults it
 * took printed, the registry it ran with written to the project's .npmrc and named in the next steps.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const main = resolve(dirname(fileURLToPath(import.meta.url)), '../dist/main.js');
let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'ccm-kit-create-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** Runs the command with `input` piped to it (so stdin is no terminal) and only the given npm_config_registry. */
function create(args: string[], { input = '', registry }: { input?: string; registry?: string } = {}) {
  const env = { ...process.env };
  delete env.npm_config_registry;
  if (registry) env.npm_config_registry = registry;
  const r = spawnSync(process.execPath, [main, ...args], { cwd: work, input, encoding: 'utf8', env });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

describe('create-ccm-kit without a terminal', () => {
  it('reads flags only, ignores answers piped to it, and says which defaults it took', () => {
    const r = create(['acme-cloud-controller-manager'], { input: 'other\nroutes\n' });
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(r.out).toContain(
      "create-ccm-kit: no terminal: nothing is asked, only flags are read; took the defaults --provider acme (the directory's name) and --facets instancesV2,loadBalancer",
    );
    expect(r.out).toContain('for provider "acme" with instancesV2, loadBalancer');
    const pkg = JSON.parse(readFileSync(join(work, 'acme-cloud-controller-manager/package.json'), 'utf8'));
    expect(pkg.ccmKit.provider).toBe('acme');
  });

  it('names only the defaults it took', () => {
    const r = create(['x', '--provider', 'mycloud']);
    expect(r.out).toContain('took the defaults --facets instancesV2,loadBalancer\n');
    expect(create(['y', '--provider', 'mycloud', '--facets', 'routes']).out).not.toContain('took the defaults');
  });

  it('writes the registry npm create ran with (--registry) into .npmrc and names it in the next steps', () => {
    const r = create(['p', '--provider', 'acme', '--facets', 'routes'], { registry: 'http://127.0.0.1:4873/' });
    expect(r.status, r.err).toBe(0);
    expect(readFileSync(join(work, 'p/.npmrc'), 'utf8')).toBe('registry=http://127.0.0.1:4873/\n');
    expect(r.out).toContain('npm install       # from http://127.0.0.1:4873/ (written to .npmrc)');
  });

  it('takes --registry given to it directly, and writes no .npmrc for registry.npmjs.org', () => {
    create(['q', '--provider', 'acme', '--facets', 'routes', '--registry', 'http://localhost:4873/']);
    expect(readFileSync(join(work, 'q/.npmrc'), 'utf8')).toBe('registry=http://localhost:4873/\n');
    const r = create(['r', '--provider', 'acme', '--facets', 'routes'], { registry: 'https://registry.npmjs.org/' });
    expect(existsSync(join(work, 'r/.npmrc'))).toBe(false);
    expect(r.out).toContain('npm install       # from your npm registry');
  });

  it('refuses a registry that is not a URL, naming the flag', () => {
    const r = create(['s', '--provider', 'acme', '--facets', 'routes', '--registry', 'localhost']);
    expect(r.err).toBe('create-ccm-kit: --registry "localhost": not a URL (e.g. http://localhost:4873/)\n');
    expect(r.status).toBe(1);
    expect(existsSync(join(work, 's'))).toBe(false);
  });
});
