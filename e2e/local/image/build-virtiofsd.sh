#!/usr/bin/env bash
# Builds the Rust virtiofsd (the `virtiofsd` crate, the one KubeVirt's launcher image carries and runs
# unprivileged) with `cargo install --locked` at a pinned version, the one KubeVirt v1.6.2 ships
# (hack/rpm-deps.sh): the crate's own Cargo.lock and release profile, its default features only (seccomp;
# needs libseccomp-dev and libcap-ng-dev, scripts/install.sh).
# Cached outside the repo under ${KV_CACHE_DIR:-~/.cache/kubevirt-ts}/virtiofsd/<hash of version + rustc>:
# a warm run does nothing. Prints the cache dir (holding bin/virtiofsd) on stdout's last line; progress goes
# to stderr. Cold: about a minute on this machine's 2 cores.
set -euo pipefail
VERSION=1.13.0
log() { printf '[virtiofsd] %s\n' "$*" >&2; }
command -v cargo >/dev/null || { log "cargo is not on PATH (Rust >= 1.80 is needed)"; exit 1; }
key=$( (echo "virtiofsd $VERSION --locked"; rustc --version) | sha256sum | cut -c1-16)
root="${KV_CACHE_DIR:-$HOME/.cache/kubevirt-ts}/virtiofsd"
cache="$root/$key"
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -x "$cache/bin/virtiofsd" ]; then
  log "cached virtiofsd $VERSION in $cache/bin"
  echo "$cache"
  exit 0
fi
log "building virtiofsd $VERSION into $cache/bin (cold: about a minute)"
start=$(date +%s)
rm -rf "$cache/tmp"
# The target dir (about 300 MB of objects) goes with the scratch dir: only the binary is kept.
cargo install --locked --quiet --root "$cache/tmp" --target-dir "$cache/tmp/target" "virtiofsd@$VERSION" >&2 ||
  { log "cargo install failed"; exit 1; }
"$cache/tmp/bin/virtiofsd" --version >&2
rm -rf "$cache/bin" && mv "$cache/tmp/bin" "$cache/bin" && rm -rf "$cache/tmp"
log "built in $(($(date +%s) - start))s: $(du -h "$cache/bin/virtiofsd" | cut -f1)"
echo "$cache"
