/**
 * The `ccmKit` settings of a provider project's package.json (`{ "ccmKit": { "provider": "mycloud",
 * "entry": "dist/main.js" } }`, written by create-ccm-kit), read by `ccm-kit dev` and `ccm-kit manifests`
 * for the flags not given.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a project's package.json says to the ccm-kit command. */
export interface ProjectPackage {
  ccmKit?: { provider?: string; entry?: string };
  scripts?: Record<string, string>;
}

/** The package.json in `cwd`, or `{}` when there is none. @throws Error naming the file when it is not JSON. */
export function readProjectPackage(cwd: string): ProjectPackage {
  const path = join(cwd, 'package.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  try {
    return JSON.parse(text) as ProjectPackage;
  } catch (err) {
    throw new Error(`${path}: not valid JSON (${(err as Error).message})`, { cause: err });
  }
}
