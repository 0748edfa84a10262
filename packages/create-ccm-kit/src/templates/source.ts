/** The other source files of a new project: config parser, main, tests, dev cloud-config. */
import { className, type ProjectOptions } from '../options.js';

export function configTs(o: ProjectOptions): string {
  return `/**
 * The --cloud-config file of the ${o.provider} provider (YAML), parsed and validated: every error names the
 * field to fix. Secrets (API tokens) come from the environment, not from this file.
 *
 *   apiEndpoint: https://api.${o.provider}.example/v1
 *   region: eu-1
 *   tokenEnv: ${o.provider.toUpperCase().replace(/-/g, '_')}_API_TOKEN   # optional, this is the default
 */
import { parse } from 'yaml';

export interface CloudConfig {
  /** Base URL of the cloud's API. */
  apiEndpoint: URL;
  /** The region this cluster runs in. */
  region: string;
  /** Name of the environment variable holding the API token. */
  tokenEnv: string;
}

const fail = (message: string): never => {
  throw new Error(\`${o.provider} cloud-config: \${message}\`);
};

/** @throws Error naming the field when the file is missing, not YAML, or a field is wrong. */
export function parseCloudConfig(text: string | undefined): CloudConfig {
  if (text === undefined) fail('--cloud-config is required (a YAML file with apiEndpoint and region)');
  let raw: unknown;
  try {
    raw = parse(text!);
  } catch (err) {
    fail(\`not valid YAML: \${(err as Error).message}\`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail('expected a YAML mapping with apiEndpoint and region');
  const { apiEndpoint, region, tokenEnv = '${o.provider.toUpperCase().replace(/-/g, '_')}_API_TOKEN', ...unknown } = raw as Record<string, unknown>;
  const extra = Object.keys(unknown);
  if (extra.length) fail(\`unknown field "\${extra[0]}" (known: apiEndpoint, region, tokenEnv)\`);
  if (typeof apiEndpoint !== 'string' || !URL.canParse(apiEndpoint)) fail('apiEndpoint must be a URL, e.g. https://api.example/v1');
  const url = new URL(apiEndpoint as string);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(\`apiEndpoint must be http(s), not \${url.protocol}\`);
  if (typeof region !== 'string' || region === '') fail('region must be a non-empty string');
  if (typeof tokenEnv !== 'string' || !/^[A-Z_][A-Z0-9_]*$/.test(tokenEnv)) fail('tokenEnv must be an environment variable name');
  return { apiEndpoint: url, region: region as string, tokenEnv: tokenEnv as string };
}
`;
}

export function mainTs(o: ProjectOptions): string {
  return `#!/usr/bin/env node
// The ${o.provider} cloud-controller-manager: register the provider, then run ccm-kit's CCM command
// (the flags of upstream's cloud-controller-manager; --help lists them).
import { runCloudControllerManager } from '@ccm-kit/app';
import { register } from './provider.js';
import { COMMAND_NAME, VERSION } from './version.js';

register();
// Your name and version in --version, --help and the User-Agent of the CCM's API requests.
await runCloudControllerManager({ commandName: COMMAND_NAME, version: VERSION });
`;
}

export function versionTs(commandName: string): string {
  return `/** The binary's name and version (test/version.test.ts keeps VERSION equal to package.json's). */
export const COMMAND_NAME = '${commandName}';
export const VERSION = '0.1.0';
`;
}

export function versionTestTs(): string {
  return `import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { COMMAND_NAME, VERSION } from '../src/version.js';

it('src/version.ts matches package.json', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  expect(VERSION).toBe(pkg.version);
  expect(Object.keys(pkg.bin)).toEqual([COMMAND_NAME]);
});
`;
}

export function conformanceOptionsTs(o: ProjectOptions): string {
  const nodes = o.facets.some((f) => f === 'instancesV2' || f === 'instances' || f === 'zones');
  // Zones alone cannot derive a Node's providerID (no Instances facet): the fixture carries one.
  const ownProviderID = !o.facets.includes('instancesV2') && !o.facets.includes('instances');
  return `/**
 * The conformance suite's options for the ${o.provider} provider, used by test/conformance.test.ts and by
 * \`npx ccm-kit conformance\`. Checks stopped by a stub (NotImplementedError) are reported as pending.
 * Options: https://github.com/ccm-kit/ccm-kit/blob/main/docs/conformance.md
 */
import type { ProviderConformanceOptions } from '@ccm-kit/testing';
import { parseCloudConfig } from '../src/config.js';
import { ${className(o.provider)} } from '../src/provider.js';

const options: ProviderConformanceOptions = {
  name: '${o.provider}',
  setup: () => ({
    // Point the provider at a stand-in for your cloud's API (an HTTP server started here, or an
    // in-memory client), and add breakCloud/healCloud to check its behaviour during an outage.
    cloud: new ${className(o.provider)}(parseCloudConfig('apiEndpoint: http://127.0.0.1:1/\\nregion: test-1\\n')),${
      nodes
        ? `
    existingNode: { metadata: { name: 'node-a' }${ownProviderID ? `, spec: { providerID: '${o.provider}://node-a' }` : ''} },
    missingNode: { metadata: { name: 'ghost' }, spec: { providerID: '${o.provider}://gone' } },`
        : ''
    }
  }),
  facets: ${JSON.stringify(o.facets).replace(/"/g, "'").replace(/,/g, ', ')},
  pendingNotImplemented: true,
};
export default options;
`;
}

export function conformanceTestTs(): string {
  return `import { describeProviderConformance } from '@ccm-kit/testing/vitest';
import options from './conformance-options.js';

describeProviderConformance(options);
`;
}

export function configTestTs(o: ProjectOptions): string {
  return `import { describe, expect, it } from 'vitest';
import { parseCloudConfig } from '../src/config.js';

describe('parseCloudConfig', () => {
  it('reads apiEndpoint, region and tokenEnv', () => {
    const c = parseCloudConfig('apiEndpoint: https://api.example/v1\\nregion: eu-1\\n');
    expect(c.apiEndpoint.href).toBe('https://api.example/v1');
    expect(c.region).toBe('eu-1');
    expect(c.tokenEnv).toBe('${o.provider.toUpperCase().replace(/-/g, '_')}_API_TOKEN');
  });

  it.each([
    [undefined, /--cloud-config is required/],
    ['[1, 2]', /expected a YAML mapping/],
    ['apiEndpoint: nope\\nregion: eu-1', /apiEndpoint must be a URL/],
    ['apiEndpoint: https://a.example\\nregion: ""', /region must be a non-empty string/],
    ['apiEndpoint: https://a.example\\nregion: eu-1\\nreigon: typo', /unknown field "reigon"/],
  ])('rejects %j naming the field', (text, message) => {
    expect(() => parseCloudConfig(text)).toThrow(message);
  });
});
`;
}

export function devCloudConfig(o: ProjectOptions): string {
  return `# The cloud-config \`npm run dev\` passes to your provider (ccm-kit dev --cloud-config dev/cloud-config.yaml).
apiEndpoint: http://127.0.0.1:8080/
region: dev-1
# The ${o.provider} provider reads its API token from this environment variable.
tokenEnv: ${o.provider.toUpperCase().replace(/-/g, '_')}_API_TOKEN
`;
}
