#!/usr/bin/env node
// `npm create ccm-kit <dir>`: a new cloud-controller-manager project. Flags, or prompts on a terminal.
import { createInterface } from 'node:readline/promises';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FACETS, parseFacets, type ProjectOptions, validateProviderName } from './options.js';
import { scaffold } from './scaffold.js';

const USAGE = `npm create ccm-kit <dir> [-- --provider <name> --facets ${FACETS.join(',')}]

  --provider <name>   provider name: --cloud-provider value and providerID scheme (default: the dir's name)
  --facets <list>     what the provider implements, any combination (default instancesV2,loadBalancer);
                      "instances" is the older Instances API, "zones" the Zones API (with either)
  --yes               no prompts: take the defaults for what is not given`;

async function options(argv: string[]): Promise<ProjectOptions> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      provider: { type: 'string' },
      facets: { type: 'string' },
      yes: { type: 'boolean', short: 'y', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals.length !== 1) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(values.help ? 0 : 2);
  }
  const dir = resolve(positionals[0]!);
  const ask = !values.yes && process.stdin.isTTY && (!values.provider || !values.facets);
  const rl = ask ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
  try {
    const fallback = basename(dir)
      .replace(/-cloud-controller-manager$/, '')
      .toLowerCase();
    const provider = validateProviderName(
      values.provider ?? ((await rl?.question(`provider name (${fallback}): `))?.trim() || fallback),
    );
    const facetText =
      values.facets ??
      ((await rl?.question(`facets, comma-separated from ${FACETS.join(', ')} (instancesV2,loadBalancer): `))?.trim() ||
        'instancesV2,loadBalancer');
    return { dir, provider, facets: parseFacets(facetText) };
  } finally {
    rl?.close();
  }
}

try {
  const o = await options(process.argv.slice(2));
  const files = await scaffold(o);
  process.stdout.write(
    `Created ${o.dir} (${files.length} files) for provider "${o.provider}" with ${o.facets.join(', ')}.\n\n` +
      `  cd ${o.dir}\n  npm install\n  npm test          # stubs are reported pending\n  npm run dev       # your CCM against a local control plane\n\n` +
      `Implement the TODOs in src/provider.ts; README.md has the rest.\n`,
  );
} catch (err) {
  process.stderr.write(`create-ccm-kit: ${(err as Error).message}\n`);
  process.exitCode = 1;
}
