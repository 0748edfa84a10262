/**
 * A `ccm-kit build` bundle answers `--help`, `--version` and a flag error without loading what only a running
 * manager needs (API clients, prom-client, informers, the controllers' implementations, the manager; undici loads
 * only later, on a request that needs it: a proxy, an `http://` server, another origin):
 * those are in chunks the bundle imports once the flags were accepted. Checked by the modules Node loads (a
 * load hook records every URL; each loaded chunk's source map names the modules in it), for the minimal example's
 * binary (dynamic import of the app) and a scaffold-style one (static import).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle } from '../src/commands/build.js';

const work = mkdtempSync(join(tmpdir(), 'ccm-kit-lazy-manager-'));
const recorder = join(work, 'record-loads.mjs');
const entries = {
  'examples/minimal': join(import.meta.dirname, '..', '..', '..', 'examples', 'minimal', 'src', 'main.ts'),
  'static import': join(import.meta.dirname, 'fixtures', 'static-app-entry.ts'),
};

beforeAll(async () => {
  writeFileSync(
    recorder,
    "import { registerHooks } from 'node:module';\nconst seen = [];\n" +
      'registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });\n' +
      "process.on('exit', () => process.stderr.write(`\\nLOADED ${JSON.stringify(seen)}\\n`));\n",
  );
  for (const [name, entry] of Object.entries(entries)) await bundle(entry, join(work, dirOf(name), 'main.mjs'));
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const dirOf = (name: string) => name.replace(/\W+/g, '-');

/** Runs the bundle with `args`; answers its exit code, output and the source modules of every bundle file it loaded. */
function run(
  name: string,
  args: string[],
): { status: number | null; stdout: string; stderr: string; modules: string[] } {
  const dir = join(work, dirOf(name));
  const r = spawnSync(process.execPath, ['--import', recorder, join(dir, 'main.mjs'), ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 30_000,
  });
  const loaded = JSON.parse(/LOADED (.*)$/m.exec(r.stderr)?.[1] ?? '[]') as string[];
  const modules = loaded
    // rolldown's helper chunk has no source map (it holds no module); every other bundle file must have one.
    .filter((url) => url.startsWith('file:') && url.endsWith('.mjs') && !/\/rolldown-runtime-[\w-]+\.mjs$/.test(url))
    .flatMap((url) => (JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')) as { sources: string[] }).sources);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.replace(/\nLOADED .*\n$/, ''), modules };
}

/** Modules only a running manager needs. */
const MANAGER_ONLY = [
  /node_modules\/undici\//,
  /node_modules\/prom-client\//,
  /node_modules\/@opentelemetry\/api\//,
  /packages\/app\/(src|dist)\/manager\/manager\./,
  /packages\/runtime\/(src|dist)\/(client\/transport|informers\/shared-informer)\./,
  /packages\/controllers\/(src|dist)\/[\w-]+\/controller\./,
];
const managerModules = (modules: string[]) => modules.filter((m) => MANAGER_ONLY.some((re) => re.test(m)));

describe.each(Object.keys(entries))('%s', (name) => {
  it('--help prints the usage and loads none of the manager', () => {
    const r = run(name, ['--help']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Usage:\n');
    expect(r.modules.some((m) => /packages\/app\/(src|dist)\/manager\/run\./.test(m))).toBe(true);
    expect(managerModules(r.modules)).toEqual([]);
  });

  it('--version and an unknown flag load none of the manager either', () => {
    const version = run(name, ['--version']);
    expect(version.status, version.stderr).toBe(0);
    expect(managerModules(version.modules)).toEqual([]);
    const unknown = run(name, ['--no-such-flag']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('Error: unknown flag: --no-such-flag');
    expect(managerModules(unknown.modules)).toEqual([]);
  });

  it('accepted flags load the manager (the check above sees its modules when they load)', () => {
    const r = run(name, ['--cloud-provider=no-such-provider', '--kubeconfig=/nonexistent']);
    expect(r.status).toBe(1);
    expect(r.modules.some((m) => /packages\/app\/(src|dist)\/manager\/manager\./.test(m))).toBe(true);
    expect(r.modules.some((m) => /node_modules\/prom-client\//.test(m))).toBe(true);
    expect(r.modules.some((m) => /node_modules\/undici\//.test(m))).toBe(false);
  });
});
