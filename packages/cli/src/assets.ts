/**
 * Files the CLI ships that live elsewhere in the ccm-kit repository: the RBAC (docs/deploy/rbac.yaml) and
 * the Go module that pins kube-apiserver, etcd and kubectl (tools/envtest). `npm pack` copies them into
 * `assets/` (the `prepack` script, scripts/copy-assets.mjs); in a checkout they are read in place, so the
 * repository keeps one copy of each.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's root directory (the one holding package.json). */
export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The name of a shipped asset. */
export type AssetName = 'rbac.yaml' | 'envtest';

/** What `assets/` holds, and where each lives in the repository. */
export const ASSETS: Readonly<Record<AssetName, string>> = {
  'rbac.yaml': 'docs/deploy/rbac.yaml',
  envtest: 'tools/envtest',
};

/**
 * The path of a shipped asset.
 * @throws Error when neither the packed copy nor the repository's file exists (a broken install).
 */
export function assetPath(name: AssetName): string {
  const packed = join(packageRoot, 'assets', name);
  if (existsSync(packed)) return packed;
  const inRepo = join(packageRoot, '../..', ASSETS[name]);
  if (existsSync(inRepo)) return inRepo;
  throw new Error(`@ccm-kit/cli: ${name} is missing from ${join(packageRoot, 'assets')}; reinstall @ccm-kit/cli`);
}
