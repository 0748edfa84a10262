#!/usr/bin/env bash
# Writes tools/envtest/versions/<minor>/ (go.mod, go.sum, tools.go) pinning one Kubernetes release and
# the etcd server that release's own go.mod requires. Every staging module k8s.io/kubernetes replaces
# with ./staging/src/k8s.io/<name> is replaced here with k8s.io/<name> v0.<minor>.<patch>, as its
# published staging tags are numbered. Needs Go >= 1.26 and the Go module proxy; commit the result
# (the fetched modules stay in the Go module cache). See README.md next to this file.
#
# Usage: bash tools/envtest/pin.sh v1.34.5
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=go-build-lib.sh
. "$here/go-build-lib.sh"
k8s_version="${1:?usage: pin.sh v1.<minor>.<patch>}"
if ! [[ "$k8s_version" =~ ^v1\.([0-9]+)\.([0-9]+)$ ]]; then
  echo "tools/envtest/pin.sh: '$k8s_version' is not a Kubernetes release like v1.34.5" >&2; exit 1
fi
minor="${BASH_REMATCH[1]}"; patch="${BASH_REMATCH[2]}"
require_go_1_26 tools/envtest/pin.sh "pin on a machine that has it."
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
dir="$here/versions/1.$minor"
mkdir -p "$dir"
mod="$(go mod download -json "k8s.io/kubernetes@$k8s_version" | awk -F'"' '$2=="GoMod"{print $4}')"
etcd_version="$(awk '$1=="go.etcd.io/etcd/server/v3"{print $2}' "$mod" | head -n1)"
{
  echo "module github.com/ccm-kit/ccm-kit/tools/envtest/versions/1.$minor"
  echo
  echo "go 1.26.0"
  echo
  awk -v v="v0.$minor.$patch" '$2=="=>" && $3 ~ /^\.\/staging\/src\// {print "replace " $1 " => " $1 " " v "\n"}' "$mod"
  echo "require ("
  echo "	go.etcd.io/etcd/server/v3 $etcd_version"
  echo "	k8s.io/kubernetes $k8s_version"
  echo ")"
} > "$dir/go.mod"
cat > "$dir/tools.go" <<GO
//go:build tools

// Package tools pins Kubernetes $k8s_version and etcd $etcd_version for
// tools/envtest/build.sh 1.$minor. Nothing here is compiled into ccm-kit.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
cd "$dir"
go mod tidy
echo "tools/envtest/pin.sh: pinned $k8s_version with etcd $etcd_version in $dir" >&2
