/**
 * API reports: one `<name>.api.md` per package entry point (`.`, `./internal`, `./vitest`), written by
 * @microsoft/api-extractor from the built declarations (`dist/*.d.ts`). A report lists every exported name
 * with its full declaration — types included, since type-only exports are invisible at runtime — so a
 * change to a package's surface shows up as a diff of `packages/<pkg>/api/*.api.md` in review.
 *
 * `npm run api:update` rewrites the reports after `tsc -b`; `tools/api-report/test/api-report.test.ts`
 * (unit project) fails while the built declarations differ from the committed reports.
 * All entry points share one TypeScript program (api-extractor's `CompilerState`), which keeps a full check
 * to one compilation instead of one per entry point.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  type ExtractorMessage,
  type IConfigFile,
} from '@microsoft/api-extractor';

/** The repository root (two levels above this file). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** One `exports` entry of a workspace package, and where its report lives. */
export interface EntryPoint {
  /** The import specifier, e.g. `@ccm-kit/runtime/internal`. */
  specifier: string;
  /** Absolute path of the package folder. */
  packageDir: string;
  /** Absolute path of the entry point's built declarations (`dist/….d.ts`). */
  declarations: string;
  /** The `exports` key: `.`, `./internal`, `./vitest`. */
  subpath: string;
  /** Report file name without `.api.md`: the unscoped package name, plus `-<subpath>` for subpaths. */
  reportName: string;
}

/** Outcome for one entry point. */
export interface EntryPointResult {
  entryPoint: EntryPoint;
  /** True when the built declarations differ from the committed report (before any update). */
  changed: boolean;
  /** api-extractor errors (a failed analysis, not a report difference). */
  errors: string[];
  /** Gaps in the report itself: `ae-forgotten-export` warnings and public names without a docstring. */
  problems: string[];
}

/**
 * Entry points whose public members may lack a docstring: none. A new entry point is documented from the
 * start; add one here only while it is being written, never on main.
 */
export const UNDOCUMENTED_ALLOWED: ReadonlySet<string> = new Set([]);

const declarationName =
  /^export (?:declare )?(?:abstract )?(?:class|interface|function|type|const|let|enum|namespace) ([\w$]+)/;
const memberName = /^\s+(?:(?:static|readonly|protected|abstract|get|set|new)\s+)*(\[[^\]]+\]|[\w$]+|\()/;

/**
 * The gaps an api-extractor report shows: each `ae-forgotten-export` warning (a public signature uses a
 * type its entry point does not export) and, unless `allowUndocumented`, each `(undocumented)` marker, as
 * `Name` or `Name.member`.
 */
export function reportProblems(report: string, allowUndocumented = false): string[] {
  const problems: string[] = [];
  const lines = report.split('\n');
  let current = '';
  for (const [i, line] of lines.entries()) {
    const forgotten = /\(ae-forgotten-export\) The symbol "([^"]+)"/.exec(line);
    if (forgotten) problems.push(`forgotten export: ${forgotten[1]} (export it, or keep it out of public signatures)`);
    const declared = declarationName.exec(line);
    if (declared) current = declared[1]!;
    if (allowUndocumented || !line.includes('(undocumented)')) continue;
    // The marker precedes its declaration, possibly after more comment lines (warnings, `//`).
    const next = lines.slice(i + 1).find((l) => !/^\s*\/\//.test(l)) ?? '';
    const top = declarationName.exec(next);
    if (top) {
      problems.push(`undocumented: ${top[1]}`);
      continue;
    }
    const member = memberName.exec(next);
    const name = member?.[1] === '(' ? '(call signature)' : member?.[1] === 'new' ? 'constructor' : member?.[1];
    problems.push(`undocumented: ${current}.${name ?? next.trim()}`);
  }
  return problems;
}

interface PackageJson {
  name: string;
  exports?: Record<string, { types?: string }>;
}

/** Every entry point of every package under `packages/`, read from the package.json `exports` maps. */
export function entryPoints(root = REPO_ROOT): EntryPoint[] {
  const result: EntryPoint[] = [];
  const packagesDir = join(root, 'packages');
  for (const dir of readdirSync(packagesDir).sort()) {
    const packageDir = join(packagesDir, dir);
    if (!existsSync(join(packageDir, 'package.json'))) continue;
    const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as PackageJson;
    for (const [subpath, conditions] of Object.entries(pkg.exports ?? {})) {
      if (!conditions.types) throw new Error(`${pkg.name}: exports["${subpath}"] has no "types" condition`);
      const suffix = subpath === '.' ? '' : subpath.replace(/^\.\//, '');
      result.push({
        specifier: suffix ? `${pkg.name}/${suffix}` : pkg.name,
        subpath,
        packageDir,
        declarations: join(packageDir, conditions.types),
        reportName: [pkg.name.replace(/^@[^/]+\//, ''), suffix].filter(Boolean).join('-'),
      });
    }
  }
  return result;
}

/** Where the committed reports of a package live. */
export function reportFolder(packageDir: string): string {
  return join(packageDir, 'api');
}

// Compiler options for reading the built declarations; the packages' own tsconfig files describe src/.
const compilerOptions = {
  target: 'es2023',
  lib: ['es2023'],
  module: 'nodenext',
  moduleResolution: 'nodenext',
  strict: true,
  skipLibCheck: true,
  types: ['node'],
};

/** `./internal`: shared by sibling packages and tests, not public API. */
function isInternal(entry: EntryPoint): boolean {
  return entry.subpath === './internal';
}

/** The names a report declares at its top level (`export class Name`, `export function name`, …). */
export function exportedNames(report: string): Set<string> {
  const names = new Set<string>();
  for (const line of report.split('\n')) {
    const declared = declarationName.exec(line);
    if (declared) names.add(declared[1]!);
  }
  return names;
}

/**
 * Drops the forgotten-export problems of a public entry point whose symbol another public entry point of the
 * same package exports: a topic entry point (`@ccm-kit/runtime/client`) may use a type that a sibling topic
 * (`@ccm-kit/runtime/wait`'s `Clock`) or the package root makes nameable.
 */
export function withoutSiblingExports(
  problems: readonly string[],
  entry: EntryPoint,
  exportedBy: ReadonlyMap<EntryPoint, ReadonlySet<string>>,
): string[] {
  return problems.filter((problem) => {
    const symbol = /^forgotten export: (\S+)/.exec(problem)?.[1];
    if (!symbol) return true;
    return ![...exportedBy].some(
      ([other, names]) =>
        other !== entry && other.packageDir === entry.packageDir && !isInternal(other) && names.has(symbol),
    );
  });
}

function reportTempFolder(root: string): string {
  return join(root, 'node_modules', '.cache', 'api-report');
}

function extractorConfig(entry: EntryPoint, root: string): ExtractorConfig {
  const tempFolder = reportTempFolder(root);
  mkdirSync(tempFolder, { recursive: true });
  const configObject: IConfigFile = {
    projectFolder: entry.packageDir,
    mainEntryPointFilePath: entry.declarations,
    compiler: { overrideTsconfig: { compilerOptions, files: [entry.declarations] } },
    apiReport: {
      enabled: true,
      reportFileName: entry.reportName,
      reportFolder: reportFolder(entry.packageDir),
      reportTempFolder: tempFolder,
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    messages: {
      compilerMessageReporting: { default: { logLevel: 'error' as never } },
      extractorMessageReporting: {
        default: { logLevel: 'warning' as never, addToApiReportFile: true },
        // ccm-kit does not use release tags: a package's surface is what its entry point exports.
        'ae-missing-release-tag': { logLevel: 'none' as never, addToApiReportFile: false },
        // `{@link member}` inside a class docstring is fine for readers and typedoc.
        'ae-unresolved-link': { logLevel: 'none' as never, addToApiReportFile: false },
        // Docstrings are reviewed in the source, not counted here.
        'ae-undocumented': { logLevel: 'none' as never, addToApiReportFile: false },
        // `/internal` may name any type of its package; every public entry point must make the types its
        // signatures use nameable (checked across the package's public entry points by `runApiReports`).
        // Reported through the message callback rather than written into the report, so that a type a sibling
        // entry point exports leaves no stale warning in the committed report.
        'ae-forgotten-export': {
          logLevel: (isInternal(entry) ? 'none' : 'warning') as never,
          addToApiReportFile: false,
        },
      },
      tsdocMessageReporting: { default: { logLevel: 'none' as never } },
    },
  };
  return ExtractorConfig.prepare({
    configObject,
    configObjectFullPath: undefined,
    packageJsonFullPath: join(entry.packageDir, 'package.json'),
  });
}

/**
 * Compares (or, with `update`, rewrites) the report of every entry point. Needs `tsc -b` first: it reads
 * `dist/`. Throws when a declaration file is missing.
 */
export function runApiReports(
  options: { update?: boolean; root?: string; undocumentedAllowed?: ReadonlySet<string> } = {},
): EntryPointResult[] {
  const root = options.root ?? REPO_ROOT;
  const entries = entryPoints(root);
  for (const entry of entries) mkdirSync(reportFolder(entry.packageDir), { recursive: true });
  const configs = entries.map((entry) => extractorConfig(entry, root));
  const compilerState = CompilerState.create(configs[0]!, {
    additionalEntryPoints: entries.map((entry) => entry.declarations),
  });
  const results = entries.map((entryPoint, i) => {
    const errors: string[] = [];
    const forgotten: string[] = [];
    const result = Extractor.invoke(configs[i]!, {
      localBuild: options.update === true,
      compilerState,
      messageCallback: (message: ExtractorMessage) => {
        if (message.logLevel === 'error') errors.push(message.formatMessageWithLocation(root));
        if (message.messageId === 'ae-forgotten-export' && message.logLevel !== 'none')
          forgotten.push(`Warning: (ae-forgotten-export) ${message.text}`);
        // The report and `problems` carry the warnings; keep the console quiet.
        message.handled = true;
      },
    });
    // api-extractor writes the report it built to the temp folder, whether or not it differs.
    const built = join(reportTempFolder(root), `${entryPoint.reportName}.api.md`);
    const allowUndocumented = (options.undocumentedAllowed ?? UNDOCUMENTED_ALLOWED).has(entryPoint.specifier);
    const report = existsSync(built) ? readFileSync(built, 'utf8') : '';
    return {
      entryPoint,
      changed: result.apiReportChanged,
      errors,
      problems: [...reportProblems(forgotten.join('\n')), ...reportProblems(report, allowUndocumented)],
      exported: exportedNames(report),
    };
  });
  const exportedBy = new Map(results.map((r) => [r.entryPoint, r.exported]));
  return results.map(({ entryPoint, changed, errors, problems }) => ({
    entryPoint,
    changed,
    errors,
    problems: withoutSiblingExports(problems, entryPoint, exportedBy),
  }));
}

// `node tools/api-report/api-report.ts [--update]`
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const update = process.argv.includes('--update');
  const results = runApiReports({ update });
  let failed = false;
  let incomplete = false;
  for (const { entryPoint, changed, errors, problems } of results) {
    const state = errors.length
      ? 'error'
      : problems.length
        ? 'gaps'
        : changed
          ? update
            ? 'updated'
            : 'CHANGED'
          : 'unchanged';
    console.log(`${state.padEnd(9)} ${entryPoint.specifier}`);
    for (const error of errors) console.log(`  ${error}`);
    for (const problem of problems) console.log(`  ${problem}`);
    failed ||= errors.length > 0 || (changed && !update);
    incomplete ||= problems.length > 0;
  }
  if (failed) {
    console.log(
      update
        ? 'api-extractor reported errors.'
        : 'Public surface changed: run `npm run api:update` and commit the reports.',
    );
  }
  if (incomplete) {
    console.log('Every public name needs a TSDoc comment, and every type a public signature uses must be exported.');
  }
  if (failed || incomplete) process.exitCode = 1;
}
