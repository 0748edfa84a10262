#!/usr/bin/env bash
# Builds the upstream Go cloud-controller-manager with the fakebench provider (main.go, fakebench.go)
# from the Go module proxy into ~/.cache/ccm-kit/bench/<cloud-provider version>/<source hash>/upstream-ccm, outside
# the repository. Skips the build when that binary is present and was built from the same sources
# (a stamp holds the sha256 of go.mod, go.sum and the .go files). Prints the binary path on its last
# line; progress goes to stderr.
#
# Env: CCM_KIT_BENCH_DIR overrides the cache root (default ~/.cache/ccm-kit/bench).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="$(awk '$1=="k8s.io/cloud-provider"{print $2}' "$here/go.mod" | head -n1)"
if [ -z "$version" ]; then
  echo "bench/upstream-ccm: cannot read the k8s.io/cloud-provider version from $here/go.mod" >&2; exit 1
fi
if ! command -v go >/dev/null 2>&1; then
  echo "bench/upstream-ccm: Go is not on PATH (Go >= 1.26 is needed to build the upstream CCM)." >&2; exit 1
fi
root="${CCM_KIT_BENCH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccm-kit/bench}"
stamp="$(cd "$here" && cat go.mod go.sum ./*.go | sha256sum | cut -d' ' -f1) $(go env GOVERSION)"
# One binary per source version: worktrees or checkouts with different fakebench sources must not replace
# each other's binary while a benchmark runs.
out="$root/$version/$(echo "$stamp" | sha256sum | cut -c1-12)"
bin="$out/upstream-ccm"
if [ -x "$bin" ] && [ -f "$bin.stamp" ] && [ "$(cat "$bin.stamp")" = "$stamp" ]; then
  echo "bench/upstream-ccm: $version already built" >&2
  echo "$bin"; exit 0
fi
mkdir -p "$out"
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod
cd "$here"
start=$(date +%s)
echo "bench/upstream-ccm: building k8s.io/cloud-provider $version with fakebench (cold: a few minutes on 2 cores) ..." >&2
go build -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$version-fakebench" -o "$bin.tmp" .
mv -f "$bin.tmp" "$bin"
echo "$stamp" > "$bin.stamp"
echo "bench/upstream-ccm: built in $(( $(date +%s) - start ))s: $bin" >&2
echo "$bin"
