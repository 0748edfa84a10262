/**
 * Every example's binary (each `bin` of examples/<name>/package.json, built in dist/: the CCMs, the demo, the
 * fake cloud APIs) answers as a vendor's binary must: `--help` prints usage and exits 0, doing nothing else; an
 * unknown flag exits 1 with a message naming it, no stack trace. Examples added later are covered without
 * listing them here.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const examples = resolve(dirname(fileURLToPath(import.meta.url)), '../../../examples');
const binaries = readdirSync(examples).flatMap((name) => {
  const pkg = JSON.parse(readFileSync(join(examples, name, 'package.json'), 'utf8')) as {
    bin?: Record<string, string>;
  };
  return Object.entries(pkg.bin ?? {}).map(([bin, path]) => ({ name, bin, path: join(examples, name, path) }));
});

function run(path: string, args: string[]) {
  const r = spawnSync(process.execPath, [path, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

describe.each(binaries)('examples/$name: $bin', ({ path }) => {
  it('--help prints usage and exits 0', () => {
    const r = run(path, ['--help']);
    expect(r.out).toMatch(/^usage/im);
    expect(r.status, r.err).toBe(0);
  });

  it('an unknown flag exits 1 naming it, without a stack trace', () => {
    const r = run(path, ['--no-such-flag']);
    expect(r.err).toContain('--no-such-flag');
    expect(r.err).not.toMatch(/^\s+at /m);
    expect(r.status).toBe(1);
  });
});

it('finds the example binaries', () => {
  expect(binaries.map((b) => b.name)).toEqual(expect.arrayContaining(['embedded', 'local', 'minimal', 'mockcloud']));
});
