// prepack: copies the repository files the CLI ships (src/assets.ts lists them) into assets/.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repo = resolve(pkg, '../..');
const assets = join(pkg, 'assets');
rmSync(assets, { recursive: true, force: true });
mkdirSync(join(assets, 'envtest'), { recursive: true });
cpSync(join(repo, 'docs/deploy/rbac.yaml'), join(assets, 'rbac.yaml'));
for (const f of ['go.mod', 'go.sum', 'tools.go', 'build.sh', 'go-build-lib.sh', 'select-version.sh', 'README.md']) {
  cpSync(join(repo, 'tools/envtest', f), join(assets, 'envtest', f));
}
// The other pinned Kubernetes minors (build.sh <minor>).
cpSync(join(repo, 'tools/envtest/versions'), join(assets, 'envtest/versions'), { recursive: true });
