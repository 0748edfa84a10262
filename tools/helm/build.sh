#!/usr/bin/env bash
# Builds helm (helm.sh/helm/v3/cmd/helm) from the Go module proxy into a cache
# directory outside the repository, keyed by version. Skips the build when that
# version is already there. Prints the path of the helm binary on its last line
# (progress goes to stderr). See README.md next to this file.
#
# Env: CCM_KIT_HELM_DIR overrides the cache root (default ~/.cache/ccm-kit/helm).
#
# The build runs in a throw-away module (GOFLAGS=-mod=mod) that requires only
# helm at the pinned version, so helm's own go.mod decides every dependency and
# nothing of helm is committed here. Concurrent runs are serialised by a lock
# file in the cache root, as tools/envtest/build.sh does.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../envtest/go-build-lib.sh
. "$here/../envtest/go-build-lib.sh"
# Pinned: the newest stable Helm 3 on the Go module proxy when this was written.
helm_version="v3.22.0"

require_go_1_26 tools/helm "point TEST_ASSET_HELM at an existing helm $helm_version binary."
goos="$(go env GOOS)"; goarch="$(go env GOARCH)"
root="${CCM_KIT_HELM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccm-kit/helm}"
dir="$root/${helm_version#v}-$goos-$goarch"

built() { [ -f "$dir/VERSION" ] && [ "$(cat "$dir/VERSION")" = "$helm_version" ] && [ -x "$dir/helm" ]; }
skip_or_lock tools/helm "helm $helm_version" "$dir/helm" "$root/.build-${helm_version#v}-$goos-$goarch.lock"
mkdir -p "$dir"

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
work="$(mktemp -d)"
on_exit "rm -rf '$work'"
cd "$work"
start=$(date +%s)
go mod init ccm-kit-helm-build >/dev/null 2>&1
echo "tools/helm: resolving helm.sh/helm/v3@$helm_version ..." >&2
go get "helm.sh/helm/v3@$helm_version" >&2
# As helm's Makefile: the version, and the Kubernetes version `helm template`
# reports as .Capabilities.KubeVersion (from the client-go it is built with;
# without these, helm falls back to v1.20).
k8s="$(go list -m -f '{{.Version}}' k8s.io/client-go)"   # v0.MINOR.PATCH
k8s_major=$(( $(echo "${k8s#v}" | cut -d. -f1) + 1 )); k8s_minor="$(echo "$k8s" | cut -d. -f2)"
ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for p in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
  ldflags="$ldflags -X $p.k8sVersionMajor=$k8s_major -X $p.k8sVersionMinor=$k8s_minor"
done
echo "tools/helm: building helm $helm_version (Kubernetes $k8s_major.$k8s_minor; cold: ~3.5 min on 2 cores) ..." >&2
rm -f "$dir/VERSION"
go build -trimpath -ldflags "$ldflags" -o "$dir/helm.tmp" helm.sh/helm/v3/cmd/helm
mv -f "$dir/helm.tmp" "$dir/helm"
echo "$helm_version" > "$dir/VERSION"
echo "tools/helm: built in $(( $(date +%s) - start ))s into $dir" >&2
echo "$dir/helm"
