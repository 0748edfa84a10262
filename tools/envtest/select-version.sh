# Sourced by tools/envtest/build.sh: maps a requested Kubernetes version to the Go module that pins it.

# select_version <request>: sets moddir (the module directory), k8s_version and etcd_version.
# <request> is empty (the default release in ./go.mod), a minor (1.33, v1.33) or a release (v1.33.13,
# 1.33.13); a release must be the one pinned for its minor.
select_version() {
  local request="${1#v}" minor default_minor
  default_minor="$(awk '$1=="k8s.io/kubernetes"{print $2}' "$here/go.mod" | cut -d. -f1,2)"
  default_minor="${default_minor#v}"
  minor="$(echo "$request" | cut -d. -f1,2)"
  if [ -z "$request" ] || [ "$minor" = "$default_minor" ]; then
    moddir="$here"
  elif [ -f "$here/versions/$minor/go.mod" ]; then
    moddir="$here/versions/$minor"
  else
    echo "tools/envtest: Kubernetes '$1' is not pinned here; pinned minors: $default_minor $(cd "$here/versions" && ls -d 1.* 2>/dev/null | tr '\n' ' ')(add one with tools/envtest/pin.sh v1.<minor>.<patch>)" >&2
    exit 1
  fi
  k8s_version="$(awk '$1=="k8s.io/kubernetes"{print $2}' "$moddir/go.mod" | head -n1)"
  etcd_version="$(awk '$1=="go.etcd.io/etcd/server/v3"{print $2}' "$moddir/go.mod" | head -n1)"
  if [ -z "$k8s_version" ] || [ -z "$etcd_version" ]; then
    echo "tools/envtest: cannot read the pinned versions from $moddir/go.mod" >&2; exit 1
  fi
  if [ "$(echo "$request" | tr -cd . | wc -c)" -eq 2 ] && [ "v$request" != "$k8s_version" ]; then
    echo "tools/envtest: Kubernetes v$request is not pinned; $minor is pinned at $k8s_version (re-pin with tools/envtest/pin.sh v$request)" >&2
    exit 1
  fi
}
