/** The configuration step's answer to a command line, for the flag-validation tests. */
import { builtInControllers } from '@ccm-kit/controllers';
import { ConfigError } from '../src/index.js';
import { configure } from '../src/options/configure.js';

/** Flags every case starts from: a provider name and no serving. */
export const baseArgv = ['--cloud-provider=test', '--secure-port=0'];

/** The problems `configure` reports for `baseArgv` plus `argv` (`[]` when it accepts them); other errors are thrown. */
export function problemsOf(argv: string[]): string[] {
  try {
    configure([...baseArgv, ...argv], builtInControllers);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}
