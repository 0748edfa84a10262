/**
 * Writes a new provider project (see templates/): `npm create ccm-kit <dir>` calls {@link scaffold}.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { defaultManifestValues, renderHelmChart } from '@ccm-kit/cli';
import type { ProjectOptions } from './options.js';
import {
  binName,
  ciWorkflow,
  dockerfile,
  dockerignore,
  gitignore,
  packageJson,
  readme,
  tsconfigJson,
  tsconfigTestJson,
} from './templates/project.js';
import { providerTs } from './templates/provider.js';
import {
  configTestTs,
  configTs,
  conformanceOptionsTs,
  conformanceTestTs,
  devCloudConfig,
  mainTs,
  versionTestTs,
  versionTs,
} from './templates/source.js';

export { type Facet, type ProjectOptions } from './options.js';
export { compileCacheDir, nodeOptions } from './templates/project.js';

/** Every file of the project, `path → content`. */
export function projectFiles(o: ProjectOptions): Record<string, string> {
  const chart = renderHelmChart(defaultManifestValues(o.provider));
  return {
    'package.json': packageJson(o),
    'tsconfig.json': tsconfigJson(),
    'tsconfig.test.json': tsconfigTestJson(),
    'README.md': readme(o),
    '.gitignore': gitignore(),
    '.dockerignore': dockerignore(),
    Dockerfile: dockerfile(o),
    '.github/workflows/ci.yml': ciWorkflow(o),
    'src/provider.ts': providerTs(o),
    'src/config.ts': configTs(o),
    'src/main.ts': mainTs(o),
    'src/version.ts': versionTs(binName(o)),
    'test/version.test.ts': versionTestTs(),
    'test/conformance-options.ts': conformanceOptionsTs(o),
    'test/conformance.test.ts': conformanceTestTs(),
    'test/config.test.ts': configTestTs(o),
    'dev/cloud-config.yaml': devCloudConfig(o),
    ...Object.fromEntries(Object.entries(chart).map(([p, c]) => [`chart/${p}`, c])),
    ...(o.registry ? { '.npmrc': `registry=${o.registry}\n` } : {}),
  };
}

/**
 * Creates `o.dir` with the project.
 * @throws Error when the directory exists and is not empty (nothing is overwritten).
 * @returns the paths written, relative to the directory.
 */
export async function scaffold(o: ProjectOptions): Promise<string[]> {
  const existing = await readdir(o.dir).catch(() => []);
  if (existing.length > 0) throw new Error(`${o.dir} exists and is not empty; choose a new directory`);
  const files = projectFiles(o);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(o.dir, path)), { recursive: true });
    await writeFile(join(o.dir, path), content, { mode: path === 'src/main.ts' ? 0o755 : 0o644 });
  }
  return Object.keys(files);
}

export { binName };
