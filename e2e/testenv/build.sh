#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the pinned go.mod in e2e/testenv/go (Go module proxy only) and
# caches the binaries outside the repo, keyed by the hash of go.mod + go.sum: a warm run does nothing.
# Prints the cache path on stdout's last line. Progress (packages compiled) goes to stderr.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
key=$(cat "$here/go/go.mod" "$here/go/go.sum" | sha256sum | cut -c1-16)
cache="${KV_CACHE_DIR:-$HOME/.cache/kubevirt-ts}/controlplane/$key"
log() { printf '[controlplane] %s\n' "$*" >&2; }

if [ -x "$cache/bin/kube-apiserver" ] && [ -x "$cache/bin/etcd" ]; then
  log "cached binaries in $cache/bin"
  echo "$cache"
  exit 0
fi
command -v go >/dev/null || { log "go is not on PATH: install Go >= 1.26 (apt golang is too old; /usr/local/go/bin)"; exit 1; }
log "building kube-apiserver and etcd into $cache/bin (cold build: about 10-20 minutes on 2 cores)"
mkdir -p "$cache/bin.tmp"
start=$(date +%s)
cd "$here/go"
# -v names each package as it is compiled; print a running count every 100 packages as progress.
GOFLAGS=-mod=readonly go build -v -trimpath -o "$cache/bin.tmp/" tool 2>&1 | awk -v t="$start" '
  /^#|error|cannot|go: / { print > "/dev/stderr"; next }
  { n++; if (n % 100 == 0) { printf "[controlplane] %d packages compiled (%ds)\n", n, systime()-t > "/dev/stderr" } }
  END { printf "[controlplane] %d packages compiled\n", n > "/dev/stderr" }'
[ "${PIPESTATUS[0]}" = 0 ] || { log "go build failed"; exit 1; }
mv "$cache/bin.tmp/server" "$cache/bin.tmp/etcd" 2>/dev/null || true
[ -x "$cache/bin.tmp/v3" ] && mv "$cache/bin.tmp/v3" "$cache/bin.tmp/etcd"
rm -rf "$cache/bin" && mv "$cache/bin.tmp" "$cache/bin"
log "built in $(( $(date +%s) - start ))s: $(ls "$cache/bin" | tr '\n' ' ')"
echo "$cache"
