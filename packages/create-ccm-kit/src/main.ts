#!/usr/bin/env node
// `npm create ccm-kit <dir>`: a new cloud-controller-manager project. Flags, or prompts on a terminal.
import { createInterface } from 'node:readline/promises';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseFacets, type ProjectOptions, validateProviderName } from './options.js';
import { scaffold } from './scaffold.js';

const DEFAULT_FACETS = 'instancesV2,loadBalancer';
/** npm's own default registry: nothing to write into the project's .npmrc. */
const NPM_REGISTRY = 'https://registry.npmjs.org/';

const FACET_HELP = `instancesV2 (the Node's metadata: providerID, addresses, type, zone, region, existence, shutdown),
                      instances (the older Instances API, by name or providerID), zones (a Node's zone and region
                      with instances only: with instancesV2 the controllers never call Zones), loadBalancer, routes`;

const USAGE = `npm create ccm-kit <dir> [-- --provider <name> --facets ${DEFAULT_FACETS}]

  --provider <name>   provider name: --cloud-provider value and providerID scheme (default: the dir's name)
  --facets <list>     what the provider implements, comma-separated (default ${DEFAULT_FACETS}):
                      ${FACET_HELP}
  --registry <url>    the npm registry the project installs from, written to its .npmrc (default: the one
                      npm create ran with, when it is not registry.npmjs.org)
  --yes               no prompts: take the defaults for what is not given
Without a terminal (input piped or redirected) nothing is asked: only the flags count, and the defaults
taken are printed.`;

async function options(argv: string[]): Promise<ProjectOptions> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      provider: { type: 'string' },
      facets: { type: 'string' },
      registry: { type: 'string' },
      yes: { type: 'boolean', short: 'y', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals.length !== 1) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(values.help ? 0 : 2);
  }
  const dir = resolve(positionals[0]!);
  const fallback = basename(dir)
    .replace(/-cloud-controller-manager$/, '')
    .toLowerCase();
  const registry = registryOf(values.registry ?? process.env.npm_config_registry);
  const missing = !values.provider || !values.facets;
  if (missing && (values.yes || !process.stdin.isTTY)) {
    const taken = [
      ...(values.provider ? [] : [`--provider ${fallback} (the directory's name)`]),
      ...(values.facets ? [] : [`--facets ${DEFAULT_FACETS}`]),
    ];
    const why = values.yes ? '--yes' : 'no terminal: nothing is asked, only flags are read';
    process.stdout.write(`create-ccm-kit: ${why}; took the defaults ${taken.join(' and ')}\n`);
    return {
      dir,
      registry,
      provider: validateProviderName(values.provider ?? fallback),
      facets: parseFacets(values.facets ?? DEFAULT_FACETS),
    };
  }
  const rl = missing ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
  try {
    const provider = validateProviderName(
      values.provider ?? ((await rl?.question(`provider name (${fallback}): `))?.trim() || fallback),
    );
    const facetText =
      values.facets ??
      ((await rl?.question(`facets, comma-separated (${DEFAULT_FACETS}):\n  ${FACET_HELP}\n> `))?.trim() ||
        DEFAULT_FACETS);
    return { dir, registry, provider, facets: parseFacets(facetText) };
  } finally {
    rl?.close();
  }
}

/** The registry to pin in the project, or undefined for npm's default. @throws Error when it is not a URL. */
function registryOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  if (!URL.canParse(url)) throw new Error(`--registry "${url}": not a URL (e.g. http://localhost:4873/)`);
  return url === NPM_REGISTRY ? undefined : url;
}

try {
  const o = await options(process.argv.slice(2));
  const files = await scaffold(o);
  const zonesNote =
    o.facets.includes('zones') && o.facets.includes('instancesV2')
      ? `Note: with instancesV2 the controllers never call Zones (instanceMetadata gives the zone); src/provider.ts says so.\n`
      : '';
  process.stdout.write(
    `Created ${o.dir} (${files.length} files) for provider "${o.provider}" with ${o.facets.join(', ')}.\n${zonesNote}\n` +
      `  cd ${o.dir}\n` +
      `  npm install       # ${o.registry ? `from ${o.registry} (written to .npmrc)` : 'from your npm registry'}\n` +
      `  npm test          # stubs are reported pending\n  npm run dev       # your CCM against a local control plane\n\n` +
      `Implement the TODOs in src/provider.ts; README.md has the rest.\n`,
  );
} catch (err) {
  process.stderr.write(`create-ccm-kit: ${(err as Error).message}\n`);
  process.exitCode = 1;
}
