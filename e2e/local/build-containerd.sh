#!/usr/bin/env bash
# Builds containerd 2, ctr and containerd-shim-runc-v2 from the pinned go.mod in e2e/local/go (Go module
# proxy only, -mod=readonly) and caches them outside the repo under
# ${KV_CACHE_DIR:-~/.cache/kubevirt-ts}/containerd/<hash of go.mod + go.sum + flags>/bin: a warm run does
# nothing. Prints the cache dir on stdout's last line; progress goes to stderr.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version=$(awk '$1 == "github.com/containerd/containerd/v2" { print $2; exit }' "$here/go/go.mod")
[ -n "$version" ] || version=$(awk '$1 == "require" && $2 == "github.com/containerd/containerd/v2" { print $3 }' "$here/go/go.mod")
tags="no_btrfs no_devmapper no_zfs"
ldflags="-X github.com/containerd/containerd/v2/version.Version=$version -X github.com/containerd/containerd/v2/version.Revision=module"
key=$( (cat "$here/go/go.mod" "$here/go/go.sum"; echo "$tags $ldflags") | sha256sum | cut -c1-16)
cache="${KV_CACHE_DIR:-$HOME/.cache/kubevirt-ts}/containerd/$key"
log() { printf '[containerd] %s\n' "$*" >&2; }
progress() {
  awk -v t="$1" '
  /^#|: / { print > "/dev/stderr"; next }
  { n++; if (n % 100 == 0) { printf "[containerd] %d packages compiled (%ds)\n", n, systime()-t > "/dev/stderr" } }
  END { printf "[containerd] %d packages compiled\n", n > "/dev/stderr" }'
}

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -x "$cache/bin/containerd" ] && [ -x "$cache/bin/ctr" ] && [ -x "$cache/bin/containerd-shim-runc-v2" ]; then
  log "cached binaries in $cache/bin"
  echo "$cache"
  exit 0
fi
command -v go >/dev/null || { log "go is not on PATH: install Go >= 1.26 (/usr/local/go/bin)"; exit 1; }
log "building containerd $version, ctr and containerd-shim-runc-v2 into $cache/bin (cold: about 2 minutes)"
rm -rf "$cache/bin.tmp" && mkdir -p "$cache/bin.tmp"
start=$(date +%s)
cd "$here/go"
m=github.com/containerd/containerd/v2/cmd
GOFLAGS=-mod=readonly go build -v -trimpath -tags "$tags" -ldflags "$ldflags" -o "$cache/bin.tmp/" \
  "$m/containerd" "$m/ctr" 2>&1 | progress "$start"
[ "${PIPESTATUS[0]}" = 0 ] || { log "go build failed"; exit 1; }
# The shim is static (it is exec'd by containerd for every Pod).
CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -v -trimpath -tags "$tags" -ldflags "$ldflags" \
  -o "$cache/bin.tmp/" "$m/containerd-shim-runc-v2" 2>&1 | progress "$start"
[ "${PIPESTATUS[0]}" = 0 ] || { log "go build (shim) failed"; exit 1; }
rm -rf "$cache/bin" && mv "$cache/bin.tmp" "$cache/bin"
log "built in $(( $(date +%s) - start ))s: $(ls "$cache/bin" | tr '\n' ' ')"
echo "$cache"
