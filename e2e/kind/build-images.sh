#!/usr/bin/env bash
# Builds, with docker, what a cluster without the local one's image import needs on its nodes (kind loads it):
#   localhost/kubevirt-ts:local   the Containerfile on debian:bookworm-slim tagged as its base, from a context
#                                 holding exactly what it copies (as e2e/local/image/build-image.sh stages it
#                                 for buildah): the bundle of scripts/build.mjs, the node on PATH (Node 24), the
#                                 Rust virtiofsd (e2e/local/image/build-virtiofsd.sh in a rust:1-bookworm
#                                 container, so it links against bookworm's libraries), the image check and
#                                 the example VMI;
#   OUT/guest-disk.tar, OUT/guest-kernel.tar   the example VM's images as OCI archives, made by
#                                 e2e/local/image/build-small.sh in a debian:bookworm container (the test guests
#                                 are built from Debian's packages).
#   e2e/kind/build-images.sh OUT
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/env.sh
source "$repo/scripts/env.sh"
IMAGE=localhost/kubevirt-ts:local
BASE=localhost/kubevirt-ts-base:bookworm
log() { printf '[images] %4ds %s\n' "$SECONDS" "$*" >&2; }

[ $# = 1 ] || {
  echo "usage: $0 <directory for the guest image archives>" >&2
  exit 2
}
mkdir -p "$1"
out="$(cd "$1" && pwd)"
[[ "$(node --version)" == v24.* ]] || { log "the image needs Node 24 on PATH, not $(node --version)"; exit 1; }

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/.tools/node/bin" "$ctx/e2e/local/image" "$ctx/lib/launcher/converter/testdata"
node "$repo/scripts/build.mjs" "$ctx/dist"
cp "$(readlink -f "$(command -v node)")" "$ctx/.tools/node/bin/node"
log "building virtiofsd"
docker run --rm --volume "$repo:/src:ro" --volume "$ctx:/ctx" --env OWNER="$(id -u):$(id -g)" \
  rust:1-bookworm bash -euo pipefail -c '
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libseccomp-dev libcap-ng-dev >/dev/null
    dir=$(bash /src/e2e/local/image/build-virtiofsd.sh | tail -n 1)
    cp "$dir/bin/virtiofsd" /ctx/.tools/virtiofsd
    chown "$OWNER" /ctx/.tools/virtiofsd'
cp "$repo/e2e/local/image/check.sh" "$ctx/e2e/local/image/check.sh"
cp "$repo/lib/launcher/converter/testdata/kernel-boot-tcg.in.json" "$ctx/lib/launcher/converter/testdata/"
cp "$repo/Containerfile" "$ctx/Containerfile"
docker pull --quiet debian:bookworm-slim >/dev/null
docker tag debian:bookworm-slim "$BASE"
log "building $IMAGE"
docker build --tag "$IMAGE" "$ctx"

log "building the guest images"
docker run --rm --volume "$repo:/src:ro" --volume "$out:/out" --env OWNER="$(id -u):$(id -g)" \
  debian:bookworm bash -euo pipefail -c '
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      gcc libc6-dev e2fsprogs qemu-utils lz4 xz-utils zstd >/dev/null
    dir=$(bash /src/e2e/local/image/build-small.sh | tail -n 1)
    cp "$dir/guest-disk.tar" "$dir/guest-kernel.tar" /out/
    chown "$OWNER" /out/guest-disk.tar /out/guest-kernel.tar'
log "built $IMAGE and $(cd "$out" && echo guest-*.tar)"
