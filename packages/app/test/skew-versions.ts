/**
 * The Kubernetes minors the version-skew suite runs against: `$CCM_KIT_SKEW_VERSIONS` (comma-separated, e.g.
 * `1.33,1.36`), else every minor pinned in tools/envtest (its go.mod and versions/<minor>/go.mod), oldest first.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './ccm-harness.js';

export function skewVersions(env: NodeJS.ProcessEnv = process.env): string[] {
  const listed = env.CCM_KIT_SKEW_VERSIONS?.split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  if (listed?.length) return listed;
  const tools = join(repoRoot, 'tools/envtest');
  const gomod = readFileSync(join(tools, 'go.mod'), 'utf8');
  const pinned = /^\s*k8s\.io\/kubernetes\s+v(\d+\.\d+)\./m.exec(gomod)?.[1];
  const versions = existsSync(join(tools, 'versions')) ? readdirSync(join(tools, 'versions')) : [];
  const all = [...new Set([...versions.filter((v) => /^\d+\.\d+$/.test(v)), ...(pinned ? [pinned] : [])])];
  return all.sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
}
