/**
 * `ccm-kit conformance`: runs @ccm-kit/testing's provider conformance suite against the vendor's provider
 * without a test file of theirs: it imports the options module (default `test/conformance-options.ts`,
 * whose default export is the `describeProviderConformance` options), runs the suite with vitest, and
 * prints what passed, what is pending (a stub threw NotImplementedError) and what broke.
 */
import { randomBytes } from 'node:crypto';
import { rm, stat, writeFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Reporter, TestModule } from 'vitest/node';
import { UsageError } from '../usage-error.js';

export const CONFORMANCE_USAGE = `ccm-kit conformance [--options test/conformance-options.ts]

  --options <file>   a module whose default export is the describeProviderConformance options
                     (name, setup, …; pendingNotImplemented defaults to true here)
Exit status: 0 when nothing broke (pending checks are listed), 1 when a check broke.`;

/** One check's outcome. */
export interface CheckOutcome {
  facet: string;
  title: string;
  state: 'passed' | 'pending' | 'broke';
  /** The stub's message (pending) or the first line of the failure (broke). */
  detail?: string;
}

/** Collects outcomes from vitest's reporter API (TestModule → TestCase.result()). */
function collector(into: CheckOutcome[]): Reporter {
  return {
    onTestRunEnd(modules: ReadonlyArray<TestModule>) {
      for (const m of modules) {
        for (const t of m.children.allTests()) {
          const r = t.result();
          const facet = t.parent.type === 'suite' ? t.parent.name : '';
          const detail =
            r.state === 'skipped'
              ? r.note?.replace(/^pending: /, '')
              : r.state === 'failed'
                ? r.errors?.[0]?.message.split('\n')[0]
                : undefined;
          into.push({
            facet,
            title: t.name,
            state: r.state === 'passed' ? 'passed' : r.state === 'failed' ? 'broke' : 'pending',
            detail,
          });
        }
        for (const e of m.errors())
          into.push({ facet: '(load)', title: relative(process.cwd(), m.moduleId), state: 'broke', detail: e.message });
      }
    },
  };
}

/** The report: counts, then one line per check. */
export function formatReport(outcomes: readonly CheckOutcome[]): string {
  const count = (s: CheckOutcome['state']) => outcomes.filter((o) => o.state === s).length;
  const label = { passed: 'PASSED ', pending: 'PENDING', broke: 'BROKE  ' } as const;
  return [
    `provider conformance: ${count('passed')} passed, ${count('pending')} pending, ${count('broke')} broke`,
    ...outcomes.map(
      (o) => `  ${label[o.state]}  ${o.facet ? `${o.facet} › ` : ''}${o.title}${o.detail ? ` — ${o.detail}` : ''}`,
    ),
  ].join('\n');
}

/**
 * Runs the suite in `cwd` (the vendor's project: vitest and @ccm-kit/testing resolve from there).
 * @returns the outcomes, in the suite's order.
 */
export async function runConformance(cwd: string, optionsFile: string): Promise<CheckOutcome[]> {
  const { startVitest } = await import('vitest/node');
  // A test file inside the project, so that its imports resolve from the project's node_modules.
  const file = resolve(cwd, `.ccm-kit-conformance-${randomBytes(4).toString('hex')}.test.ts`);
  const spec = JSON.stringify(`./${relative(cwd, optionsFile).replace(/\.ts$/, '.js')}`);
  await writeFile(
    file,
    `import { describeProviderConformance } from '@ccm-kit/testing/vitest';\n` +
      `import options from ${spec};\n` +
      `describeProviderConformance({ pendingNotImplemented: true, ...options });\n`,
  );
  const outcomes: CheckOutcome[] = [];
  try {
    const vitest = await startVitest('test', [file], {
      root: cwd,
      config: false,
      watch: false,
      include: [relative(cwd, file)],
      reporters: [collector(outcomes)],
      silent: true,
    });
    await vitest.close();
  } finally {
    await rm(file, { force: true });
  }
  return outcomes;
}

/** Runs the command; exit status 1 when a check broke. */
export async function conformanceCommand(argv: string[], cwd: string, out: (text: string) => void): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { options: { type: 'string', default: 'test/conformance-options.ts' } },
    strict: true,
  });
  const optionsFile = resolve(cwd, values.options);
  if (!(await stat(optionsFile).catch(() => undefined)))
    throw new UsageError(
      `--options: ${values.options} does not exist in ${cwd}; it default-exports the describeProviderConformance options`,
    );
  const outcomes = await runConformance(cwd, optionsFile);
  out(formatReport(outcomes));
  if (outcomes.length === 0) {
    out('no checks ran: is the options module exporting a provider (setup().cloud)?');
    return 1;
  }
  return outcomes.some((o) => o.state === 'broke') ? 1 : 0;
}
