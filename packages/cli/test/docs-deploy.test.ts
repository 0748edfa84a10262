/**
 * docs/deploy/{deployment,daemonset}.yaml are `ccm-kit manifests` output for the docs' example provider
 * `mycloud`: one template source (packages/cli/src/manifests/workload.ts) for the docs, the command and
 * the Helm chart. Regenerate with `npx ccm-kit manifests --provider mycloud --kind <Kind> --no-rbac`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { rbacManifest, renderWorkload } from '../src/manifests/render.js';
import { defaultManifestValues } from '../src/manifests/values.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const withoutComments = (text: string) =>
  text
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n')
    .trim();

describe('docs/deploy', () => {
  it.each(['Deployment', 'DaemonSet'] as const)('%s manifest is what ccm-kit manifests renders', (kind) => {
    const file = join(repoRoot, 'docs/deploy', `${kind.toLowerCase()}.yaml`);
    expect(withoutComments(readFileSync(file, 'utf8'))).toBe(
      renderWorkload(defaultManifestValues('mycloud', kind)).trim(),
    );
  });

  it('the CLI ships docs/deploy/rbac.yaml as its RBAC', () => {
    expect(rbacManifest()).toBe(readFileSync(join(repoRoot, 'docs/deploy/rbac.yaml'), 'utf8'));
  });
});
