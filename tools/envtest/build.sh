#!/usr/bin/env bash
# Builds kube-apiserver, etcd and kubectl from the Go module proxy into a cache
# directory outside the repository, keyed by version. Skips the build when that
# version is already there. Prints the assets directory on its last line
# (progress goes to stderr). See README.md next to this file.
#
# Usage: build.sh [<minor>]   e.g. build.sh 1.33 — builds the release pinned in versions/<minor>/go.mod;
# without an argument (or CCM_KIT_K8S_VERSION), the default release pinned in ./go.mod.
#
# Env: CCM_KIT_ENVTEST_DIR overrides the cache root (default ~/.cache/ccm-kit/envtest).
#      CCM_KIT_K8S_VERSION  the minor (1.33) or release (v1.33.13) to build when no argument is given.
#
# Concurrent runs (two test processes, two terminals) are serialised by a lock
# file in the cache root: the second waits, then finds the finished build and
# skips it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=go-build-lib.sh
. "$here/go-build-lib.sh"
# shellcheck source=select-version.sh
. "$here/select-version.sh"
select_version "${1:-${CCM_KIT_K8S_VERSION:-}}"
require_go_1_26 tools/envtest "point TEST_ASSET_KUBE_APISERVER and TEST_ASSET_ETCD (or KUBEBUILDER_ASSETS) at existing binaries."
goos="$(go env GOOS)"; goarch="$(go env GOARCH)"
root="${CCM_KIT_ENVTEST_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccm-kit/envtest}"
assets="$root/${k8s_version#v}-$goos-$goarch"
stamp="k8s=$k8s_version etcd=$etcd_version"

built() {
  [ -f "$assets/VERSION" ] && [ "$(cat "$assets/VERSION")" = "$stamp" ] \
    && [ -x "$assets/kube-apiserver" ] && [ -x "$assets/etcd" ] && [ -x "$assets/kubectl" ]
}
skip_or_lock tools/envtest "$stamp" "$assets" "$root/.build-${k8s_version#v}-$goos-$goarch.lock"
mkdir -p "$assets"

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
minor="$(echo "$k8s_version" | cut -d. -f2)"
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$k8s_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
cd "$moddir"
start=$(date +%s)
rm -f "$assets/VERSION"
echo "tools/envtest: building etcd $etcd_version ..." >&2
go build -trimpath -ldflags "-s -w" -o "$assets/etcd.tmp" go.etcd.io/etcd/server/v3
echo "tools/envtest: building kube-apiserver $k8s_version (cold: ~10 min on 2 cores) ..." >&2
go build -trimpath -ldflags "$ldflags" -o "$assets/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
echo "tools/envtest: building kubectl $k8s_version ..." >&2
go build -trimpath -ldflags "$ldflags" -o "$assets/kubectl.tmp" k8s.io/kubernetes/cmd/kubectl
for b in etcd kube-apiserver kubectl; do mv -f "$assets/$b.tmp" "$assets/$b"; done
echo "$stamp" > "$assets/VERSION"
echo "tools/envtest: built in $(( $(date +%s) - start ))s into $assets" >&2
echo "$assets"
