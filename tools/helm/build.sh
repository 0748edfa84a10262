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
# Pinned: the newest stable Helm 3 on the Go module proxy when this was written.
helm_version="v3.22.0"

if ! command -v go >/dev/null 2>&1; then
  echo "tools/helm: Go is not on PATH. Install Go >= 1.26, or point CCM_KIT_HELM at an existing helm $helm_version binary." >&2
  exit 1
fi
goos="$(go env GOOS)"; goarch="$(go env GOARCH)"
root="${CCM_KIT_HELM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccm-kit/helm}"
dir="$root/${helm_version#v}-$goos-$goarch"

built() { [ -f "$dir/VERSION" ] && [ "$(cat "$dir/VERSION")" = "$helm_version" ] && [ -x "$dir/helm" ]; }
if built; then
  echo "tools/helm: helm $helm_version already built" >&2
  echo "$dir/helm"; exit 0
fi

# helm v3.22 declares go 1.26.0; GOTOOLCHAIN=local forbids a toolchain download.
gov="$(go env GOVERSION)"; gov="${gov#go}"
gomajor="${gov%%.*}"; gominor="$(echo "$gov" | cut -d. -f2)"
if [ "$gomajor" -lt 1 ] || { [ "$gomajor" -eq 1 ] && [ "${gominor%%[!0-9]*}" -lt 26 ]; }; then
  echo "tools/helm: Go $gov is too old; helm $helm_version needs Go >= 1.26." >&2; exit 1
fi

mkdir -p "$root" "$dir"
lock="$root/.build-${helm_version#v}-$goos-$goarch.lock"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$lock"
  if ! flock -n 9; then
    echo "tools/helm: another build holds $lock; waiting for it ..." >&2
    flock 9
  fi
else
  until mkdir "$lock.d" 2>/dev/null; do
    if [ -n "$(find "$lock.d" -maxdepth 0 -mmin +120 2>/dev/null)" ]; then rmdir "$lock.d" 2>/dev/null || true; continue; fi
    echo "tools/helm: another build holds $lock.d; waiting ..." >&2; sleep 5
  done
  trap 'rmdir "$lock.d" 2>/dev/null || true' EXIT
fi
if built; then
  echo "tools/helm: helm $helm_version was built by another process" >&2
  echo "$dir/helm"; exit 0
fi

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
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
echo "tools/helm: building helm $helm_version (Kubernetes $k8s_major.$k8s_minor; cold: several minutes on 2 cores) ..." >&2
rm -f "$dir/VERSION"
go build -trimpath -ldflags "$ldflags" -o "$dir/helm.tmp" helm.sh/helm/v3/cmd/helm
mv -f "$dir/helm.tmp" "$dir/helm"
echo "$helm_version" > "$dir/VERSION"
echo "tools/helm: built in $(( $(date +%s) - start ))s into $dir" >&2
echo "$dir/helm"
