/**
 * tools/envtest/select-version.sh: which pinned module `build.sh [<version>]` builds (tools/envtest/README.md).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');

function select(request: string): { status: number | null; out: string; err: string } {
  const r = spawnSync(
    'bash',
    [
      '-c',
      `set -e; here="$1"; . "$here/select-version.sh"; select_version "$2"; echo "$moddir $k8s_version $etcd_version"`,
      '_',
      here,
      request,
    ],
    { encoding: 'utf8' },
  );
  return { status: r.status, out: r.stdout.trim(), err: r.stderr.trim() };
}

describe('select_version', () => {
  it('no version: the default module', () => {
    expect(select('').out).toBe(`${here} v1.36.4 v3.6.8`);
  });

  it("a minor or its pinned release, with or without v: that minor's module", () => {
    expect(select('1.33').out).toBe(`${here}/versions/1.33 v1.33.13 v3.5.21`);
    expect(select('v1.34').out).toBe(`${here}/versions/1.34 v1.34.5 v3.6.4`);
    expect(select('1.35.8').out).toBe(`${here}/versions/1.35 v1.35.8 v3.6.5`);
    expect(select('1.36').out).toBe(`${here} v1.36.4 v3.6.8`);
  });

  it('a minor not pinned, or another release of a pinned minor: an error naming what is pinned', () => {
    const r = select('1.32');
    expect(r.status).toBe(1);
    expect(r.err).toMatch(/Kubernetes '1\.32' is not pinned here; pinned minors: 1\.36 1\.33 1\.34 1\.35/);
    expect(select('1.33.12').err).toBe(
      'tools/envtest: Kubernetes v1.33.12 is not pinned; 1.33 is pinned at v1.33.13 (re-pin with tools/envtest/pin.sh v1.33.12)',
    );
  });
});
