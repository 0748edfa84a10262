#!/usr/bin/env node
// The `ccm-kit` command: checks the running Node.js first (one line, exit 1), then dispatches to the
// sub-commands in commands/ (loaded only after the check, so an older Node never evaluates them).
import { readFileSync } from 'node:fs';
import { nodeVersionProblem } from './node-version.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
};
const problem = nodeVersionProblem(process.versions.node, pkg.engines.node);
if (problem) {
  process.stderr.write(`ccm-kit: ${problem}\n`);
  process.exitCode = 1;
} else {
  const { runCli } = await import('./cli.js');
  process.exitCode = await runCli(process.argv.slice(2));
}
