/** What create-ccm-kit writes, per facet choice; the vendor-flow integration test installs and runs it. */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseFacets, validateProviderName } from '../src/options.js';
import { projectFiles } from '../src/scaffold.js';
import { THIRD_PARTY } from '../src/versions.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

describe('create-ccm-kit', () => {
  it('writes the chosen facets as stubs throwing NotImplementedError, and only those', () => {
    const files = projectFiles({ dir: '/x', provider: 'my-cloud', facets: parseFacets('routes,instances,zones') });
    const provider = files['src/provider.ts']!;
    expect(provider).toContain('export class MyCloudCloud implements CloudProvider, Instances, Zones, Routes {');
    expect(provider).toContain("throw new NotImplementedError('createRoute not implemented');");
    expect(provider).toContain("throw new NotImplementedError('getZoneByProviderID not implemented');");
    expect(provider).not.toContain('instanceMetadata');
    expect(provider).not.toContain('ensureLoadBalancer');
    expect(files['test/conformance-options.ts']).toContain("facets: ['instances', 'zones', 'routes'],");
    expect(files['test/conformance-options.ts']).toContain('pendingNotImplemented: true');
  });

  it('package.json names the provider for ccm-kit and depends on the ccm-kit packages', () => {
    const pkg = JSON.parse(projectFiles({ dir: '/x', provider: 'acme', facets: ['instancesV2'] })['package.json']!);
    expect(pkg.ccmKit).toEqual({ provider: 'acme', entry: 'dist/main.js' });
    expect(pkg.scripts.typecheck).toBe('tsc -p tsconfig.test.json');
    expect(Object.keys(pkg.dependencies)).toEqual([
      '@ccm-kit/app',
      '@ccm-kit/cloud-provider',
      '@kubernetes/client-node',
      'yaml',
    ]);
    expect(Object.keys(pkg.devDependencies)).toEqual([
      '@ccm-kit/cli',
      '@ccm-kit/testing',
      '@types/node',
      'node',
      'typescript',
      'vitest',
    ]);
  });

  it('pins Node.js as the repository does: engines.node and the `node` devDependency, its install script allowed', () => {
    const root = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
    const pkg = JSON.parse(projectFiles({ dir: '/x', provider: 'acme', facets: ['instancesV2'] })['package.json']!);
    expect(pkg.engines.node).toBe(root.engines.node);
    expect(pkg.devDependencies.node).toBe(root.devDependencies.node);
    expect(pkg.allowScripts).toEqual(root.allowScripts);
  });

  it('writes the registry it was given into .npmrc, and no .npmrc without one', () => {
    const withRegistry = projectFiles({
      dir: '/x',
      provider: 'acme',
      facets: ['zones'],
      registry: 'http://127.0.0.1:4873/',
    });
    expect(withRegistry['.npmrc']).toBe('registry=http://127.0.0.1:4873/\n');
    expect(projectFiles({ dir: '/x', provider: 'acme', facets: ['zones'] })['.npmrc']).toBeUndefined();
  });

  it('says what Zones is for: never called beside InstancesV2, asked after Instances otherwise', () => {
    const withV2 = projectFiles({ dir: '/x', provider: 'acme', facets: parseFacets('instancesV2,zones') });
    expect(withV2['src/provider.ts']).toContain(
      "Never called by the controllers: with InstancesV2 a Node's zone and region come from instanceMetadata.",
    );
    const withV1 = projectFiles({ dir: '/x', provider: 'acme', facets: parseFacets('instances,zones') });
    expect(withV1['src/provider.ts']).toContain(
      'The cloud-node controller asks Zones (by providerID, else by node name)',
    );
    expect(withV1['src/provider.ts']).not.toContain('Never called');
  });

  it('pins the third-party versions ccm-kit itself uses', () => {
    const root = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
    const app = JSON.parse(readFileSync(join(repoRoot, 'packages/app/package.json'), 'utf8'));
    const all = { ...root.devDependencies, ...app.dependencies };
    for (const [name, range] of Object.entries(THIRD_PARTY)) expect(range, name).toBe(all[name]);
  });

  it('writes a Dockerfile on the official Node image running the bundle as a numeric non-root user, and a Helm chart', () => {
    const files = projectFiles({ dir: '/x', provider: 'acme', facets: ['loadBalancer'] });
    // The Node major ccm-kit pins for itself (the root `node` devDependency).
    const root = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
    const pinned = /^\^?(\d+)\./.exec(root.devDependencies.node)![1];
    expect(files.Dockerfile).toMatch(new RegExp(`^FROM node:${pinned}-slim AS build$`, 'm'));
    expect(files.Dockerfile).toMatch(new RegExp(`^FROM node:${pinned}-slim$`, 'm'));
    expect(files['.github/workflows/ci.yml']).toContain(`node-version: ${pinned}`);
    expect(files.Dockerfile).toContain('RUN npx ccm-kit build');
    expect(files.Dockerfile).toContain('USER 65532:65532');
    // Decisions 0411, 0412: a smaller young generation by default, no source-map parsing at start.
    expect(files.Dockerfile).toContain('ENV NODE_OPTIONS=--max-semi-space-size=2');
    expect(files.Dockerfile).toContain('ENTRYPOINT ["node", "/app/main.mjs"]');
    // Decision 0417: the compile cache is filled as the user the CCM runs as (Node keys the cache by user id).
    expect(files.Dockerfile).toContain('ENV NODE_COMPILE_CACHE=/app/.compile-cache');
    const user = files.Dockerfile!.indexOf('USER 65532:65532');
    const chown = files.Dockerfile!.indexOf('RUN mkdir /app/.compile-cache && chown 65532:65532 /app/.compile-cache');
    expect(chown).toBeGreaterThanOrEqual(0);
    expect(chown).toBeLessThan(user);
    expect(files.Dockerfile!.indexOf('RUN node /app/fill-compile-cache.mjs')).toBeGreaterThan(user);
    expect(files['chart/Chart.yaml']).toContain('name: acme-cloud-controller-manager');
    expect(files['chart/values.yaml']).toContain('providerName: acme');
    // The cloud API token comes from a Secret by default, and the chart's README says how to create it.
    expect(files['chart/values.yaml']).toMatch(
      /name: ACME_API_TOKEN\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: acme-cloud-credentials\n\s+key: token/,
    );
    expect(files['chart/README.md']).toContain(
      'kubectl -n kube-system create secret generic acme-cloud-credentials --from-literal=token=',
    );
    expect(files['chart/values.yaml']).not.toContain('namespace');
    expect(files['chart/templates/rbac.yaml']).toContain('namespace: {{ .Release.Namespace }}');
    expect(files['chart/README.md']).toContain('Everything of the CCM goes to the release namespace');
    expect(files['chart/templates/deployment.yaml']).toContain('{{- if eq .Values.kind "Deployment" }}');
  });

  it.each([
    ['MyCloud', /provider name "MyCloud"/],
    ['1cloud', /provider name "1cloud"/],
  ])('rejects the provider name %j', (name, message) => {
    expect(() => validateProviderName(name)).toThrow(message);
  });

  it.each([
    // The facet sets of docs/provider-families.md: GCE/AWS, OpenStack, vSphere, Mesos/oVirt, Rackspace, rancher.
    [
      'instances,instancesV2,zones,loadBalancer,routes',
      ['instancesV2', 'instances', 'zones', 'loadBalancer', 'routes'],
    ],
    ['instancesV2,loadBalancer,routes', ['instancesV2', 'loadBalancer', 'routes']],
    ['instances,zones,loadBalancer,routes', ['instances', 'zones', 'loadBalancer', 'routes']],
    ['instances', ['instances']],
    ['zones', ['zones']],
    ['instancesV2,zones,loadBalancer', ['instancesV2', 'zones', 'loadBalancer']],
  ])('scaffolds the facet set %j', (text, facets) => {
    expect(parseFacets(text)).toEqual(facets);
    const files = projectFiles({ dir: '/x', provider: 'acme', facets: parseFacets(text) });
    expect(files['src/provider.ts']).toContain(
      `implements ${['CloudProvider', ...facets.flatMap((f) => ({ instancesV2: 'InstancesV2', instances: 'Instances', zones: 'Zones', loadBalancer: 'LoadBalancer', routes: 'Routes' })[f]!)].join(', ')} {`,
    );
    expect(files['test/conformance-options.ts']).toContain(`facets: [${facets.map((f) => `'${f}'`).join(', ')}],`);
    expect(files['test/conformance-options.ts']).toContain("existingNode: { metadata: { name: 'node-a' }");
  });

  it.each([
    ['lb', /facet "lb": choose from/],
    ['', /at least one/],
  ])('rejects the facets %j', (text, message) => {
    expect(() => parseFacets(text)).toThrow(message);
  });
});
