#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the pinned go.mod in testenv/go (Go module proxy only) and
# caches the binaries outside the repo, keyed by the hash of go.mod + go.sum: a warm run does nothing.
# `build.sh node` also builds the node's binaries from the same module (kubelet, kube-proxy,
# kube-scheduler, kube-controller-manager: the local cluster in e2e/local) and kubectl (the tests that
# drive the rewriter as a user would) into the same cache dir, and
# `build.sh dra` Kubernetes' own DRA test driver (test/e2e/dra/test-driver) as dra-test-driver, the kubelet
# plugin of e2e/local/dra-driver.ts. Arguments combine: `build.sh node dra`.
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

NODE_TOOLS=(kubelet kube-proxy kube-scheduler kube-controller-manager kubectl)
DRA_TOOL=dra-test-driver
want_node=0
want_dra=0
for arg in "$@"; do
  case "$arg" in
    node) want_node=1 ;;
    dra) want_dra=1 ;;
    *) log "usage: build.sh [node] [dra]"; exit 2 ;;
  esac
done

# go build -v names each package as it is compiled; print a running count every 100 packages as progress.
progress() {
  awk -v t="$1" '
  /^#|: / { print > "/dev/stderr"; next }
  { n++; if (n % 100 == 0) { printf "[controlplane] %d packages compiled (%ds)\n", n, systime()-t > "/dev/stderr" } }
  END { printf "[controlplane] %d packages compiled\n", n > "/dev/stderr" }'
}
need_go() {
  command -v go >/dev/null || { log "go is not on PATH: install Go >= 1.26 (apt golang is too old; /usr/local/go/bin)"; exit 1; }
}
node_built() {
  local t
  for t in "${NODE_TOOLS[@]}"; do [ -x "$cache/bin/$t" ] || return 1; done
}

mkdir -p "$cache"
# One build at a time per key (tests, helpers and CI may call this concurrently).
exec 9>"$cache/.lock"
flock 9
if [ -x "$cache/bin/kube-apiserver" ] && [ -x "$cache/bin/etcd" ]; then
  log "cached binaries in $cache/bin"
else
  need_go
  log "building kube-apiserver and etcd into $cache/bin (cold build: about 5-10 minutes on 2 cores)"
  rm -rf "$cache/bin.tmp" && mkdir -p "$cache/bin.tmp"
  start=$(date +%s)
  cd "$here/go"
  GOFLAGS=-mod=readonly go build -v -trimpath -ldflags "$ldflags" -o "$cache/bin.tmp/" \
    go.etcd.io/etcd/server/v3 k8s.io/kubernetes/cmd/kube-apiserver 2>&1 | progress "$start"
  [ "${PIPESTATUS[0]}" = 0 ] || { log "go build failed"; exit 1; }
  mv "$cache/bin.tmp/server" "$cache/bin.tmp/etcd" 2>/dev/null || true
  [ -x "$cache/bin.tmp/v3" ] && mv "$cache/bin.tmp/v3" "$cache/bin.tmp/etcd"
  # Keep node and DRA binaries an earlier `build.sh node` or `build.sh dra` put here.
  for t in "${NODE_TOOLS[@]}" "$DRA_TOOL"; do
    if [ -x "$cache/bin/$t" ]; then mv "$cache/bin/$t" "$cache/bin.tmp/"; fi
  done
  rm -rf "$cache/bin" && mv "$cache/bin.tmp" "$cache/bin"
  log "built in $(( $(date +%s) - start ))s: $(ls "$cache/bin" | tr '\n' ' ')"
fi
# Builds Go packages of the module into $cache/bin through a scratch dir, so a failed build leaves bin as it
# was: build_tools <label> <cold time> <go build -o target, under the scratch dir> <package>...
build_tools() {
  local label=$1 cold=$2 out=$3 tmp="$cache/$1.tmp" start
  shift 3
  need_go
  log "building $label into $cache/bin (cold: $cold)"
  rm -rf "$tmp" && mkdir -p "$tmp"
  start=$(date +%s)
  cd "$here/go"
  GOFLAGS=-mod=readonly go build -v -trimpath -ldflags "$ldflags" -o "$tmp/$out" "$@" 2>&1 | progress "$start"
  [ "${PIPESTATUS[0]}" = 0 ] || { log "go build ($label) failed"; exit 1; }
  mv "$tmp"/* "$cache/bin/"
  rm -rf "$tmp"
  log "$label built in $(( $(date +%s) - start ))s"
}
if [ "$want_node" = 1 ] && node_built; then
  log "cached node binaries in $cache/bin"
elif [ "$want_node" = 1 ]; then
  pkgs=()
  for t in "${NODE_TOOLS[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$t"); done
  build_tools node "about 5 minutes on 2 cores, kubelet first" "" "${pkgs[@]}"
fi
if [ "$want_dra" = 1 ] && [ -x "$cache/bin/$DRA_TOOL" ]; then
  log "cached $DRA_TOOL in $cache/bin"
elif [ "$want_dra" = 1 ]; then
  build_tools dra "about 2.5 minutes on 2 cores" "$DRA_TOOL" k8s.io/kubernetes/test/e2e/dra/test-driver
fi
echo "$cache"
