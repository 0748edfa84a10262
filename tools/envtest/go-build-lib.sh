# Sourced by tools/envtest/build.sh and tools/helm/build.sh (and the copy of tools/envtest that
# @ccm-kit/cli ships): the Go version check and the lock that serialises concurrent builds.

# on_exit <command>: runs <command> when the calling shell exits (after those registered before it).
_on_exit=()
on_exit() {
  _on_exit+=("$1")
  trap 'for c in "${_on_exit[@]}"; do eval "$c"; done' EXIT
}

# require_go_1_26 <tool> <what needs it>: exits 1 unless Go >= 1.26 is on PATH (GOTOOLCHAIN=local
# forbids a toolchain download, and the pinned modules declare go 1.26.0).
require_go_1_26() {
  if ! command -v go >/dev/null 2>&1; then
    echo "$1: Go is not on PATH. Install Go >= 1.26, or $2" >&2; exit 1
  fi
  local gov gomajor gominor
  gov="$(go env GOVERSION)"; gov="${gov#go}"
  gomajor="${gov%%.*}"; gominor="$(echo "$gov" | cut -d. -f2)"
  if [ "$gomajor" -lt 1 ] || { [ "$gomajor" -eq 1 ] && [ "${gominor%%[!0-9]*}" -lt 26 ]; }; then
    echo "$1: Go $gov is too old; Go >= 1.26 is needed." >&2; exit 1
  fi
}

# take_build_lock <tool> <lock file>: one build per output directory at a time. flock releases the lock
# when the calling shell exits, whatever the reason; without flock, an atomic mkdir (a lock directory
# older than 2 h is stale), removed on exit.
take_build_lock() {
  local tool="$1" lock="$2"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$lock"
    if ! flock -n 9; then
      echo "$tool: another build holds $lock; waiting for it ..." >&2
      flock 9
    fi
  else
    until mkdir "$lock.d" 2>/dev/null; do
      if [ -n "$(find "$lock.d" -maxdepth 0 -mmin +120 2>/dev/null)" ]; then rmdir "$lock.d" 2>/dev/null || true; continue; fi
      echo "$tool: another build holds $lock.d; waiting ..." >&2; sleep 5
    done
    on_exit "rmdir '$lock.d' 2>/dev/null || true"
  fi
}

# skip_or_lock <tool> <what> <result> <lock file>: exits 0 printing <result> (the script's last stdout
# line) when the caller's `built` function says <what> is there already; otherwise takes the build lock
# and looks again, since a concurrent run may have built it while this one waited.
skip_or_lock() {
  local tool="$1" what="$2" result="$3" lock="$4"
  if built; then
    echo "$tool: $what already built" >&2
    echo "$result"; exit 0
  fi
  mkdir -p "$(dirname "$lock")"
  take_build_lock "$tool" "$lock"
  if built; then
    echo "$tool: $what was built by another process" >&2
    echo "$result"; exit 0
  fi
}
