#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the pinned go.mod in e2e/testenv/go (Go module proxy only) and
# caches the binaries outside the repo, keyed by the hash of go.mod + go.sum: a warm run does nothing.
# Prints the cache path on stdout's last line. Progress (packages compiled) goes to stderr.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Stamp the version kube-apiserver reports (/version) from the pinned module; the flags are part of the key.
k8s_version=$(awk '$1 == "k8s.io/kubernetes" { print $2; exit }' "$here/go/go.mod")
minor=${k8s_version#v1.}; minor=${minor%%.*}
ldflags="-X k8s.io/component-base/version.gitVersion=$k8s_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
key=$( (cat "$here/go/go.mod" "$here/go/go.sum"; echo "$ldflags") | sha256sum | cut -c1-16)
cache="${KV_CACHE_DIR:-$HOME/.cache/kubevirt-ts}/controlplane/$key"
log() { printf '[controlplane] %s\n' "$*" >&2; }

mkdir -p "$cache"
# One build at a time per key (tests, helpers and CI may call this concurrently).
exec 9>"$cache/.lock"
flock 9
if [ -x "$cache/bin/kube-apiserver" ] && [ -x "$cache/bin/etcd" ]; then
  log "cached binaries in $cache/bin"
  echo "$cache"
  exit 0
fi
command -v go >/dev/null || { log "go is not on PATH: install Go >= 1.26 (apt golang is too old; /usr/local/go/bin)"; exit 1; }
log "building kube-apiserver and etcd into $cache/bin (cold build: about 5-10 minutes on 2 cores)"
mkdir -p "$cache/bin.tmp"
start=$(date +%s)
cd "$here/go"
# -v names each package as it is compiled; print a running count every 100 packages as progress.
GOFLAGS=-mod=readonly go build -v -trimpath -ldflags "$ldflags" -o "$cache/bin.tmp/" tool 2>&1 | awk -v t="$start" '
  /^#|: / { print > "/dev/stderr"; next }
  { n++; if (n % 100 == 0) { printf "[controlplane] %d packages compiled (%ds)\n", n, systime()-t > "/dev/stderr" } }
  END { printf "[controlplane] %d packages compiled\n", n > "/dev/stderr" }'
[ "${PIPESTATUS[0]}" = 0 ] || { log "go build failed"; exit 1; }
mv "$cache/bin.tmp/server" "$cache/bin.tmp/etcd" 2>/dev/null || true
[ -x "$cache/bin.tmp/v3" ] && mv "$cache/bin.tmp/v3" "$cache/bin.tmp/etcd"
rm -rf "$cache/bin" && mv "$cache/bin.tmp" "$cache/bin"
log "built in $(( $(date +%s) - start ))s: $(ls "$cache/bin" | tr '\n' ' ')"
echo "$cache"
