#!/usr/bin/env bash
# Builds the project's one image (Containerfile at the repo root) with buildah, from a local Debian base:
#   1. base: debootstrap --variant=minbase bookworm from this machine's Debian mirror, committed as
#      localhost/kubevirt-ts-base:bookworm (the Containerfile's FROM), cached by mirror + suite;
#   2. context: the bundle (scripts/build.mjs into the context's dist/), .tools/node/bin/node, the Rust
#      virtiofsd (build-virtiofsd.sh, cached) as .tools/virtiofsd, the check script and the example VMI,
#      staged in a directory of ours (the repo's node_modules never go in);
#   3. buildah bud --pull=never (RUN steps on the host network: apt-get reaches the Debian mirror only),
#      tagged localhost/kubevirt-ts:local, exported as an OCI archive (image.tar).
# Everything buildah keeps (storage, run root, temp files) lives under
# ${KV_CACHE_DIR:-~/.cache/kubevirt-ts}/image (config passed by CONTAINERS_* env vars; /etc untouched).
# Cached by the hash of the Containerfile, the staged context and the base key; prints the dir last.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
root="${KV_CACHE_DIR:-$HOME/.cache/kubevirt-ts}/image"
IMAGE=localhost/kubevirt-ts:local
BASE=localhost/kubevirt-ts-base:bookworm
t0=$SECONDS
log() { printf '[image] %3ds %s\n' "$((SECONDS - t0))" "$*" >&2; }
export PATH="$PATH:/usr/sbin:/sbin"
for tool in buildah debootstrap; do
  command -v "$tool" >/dev/null || { log "$tool is missing (scripts/install.sh installs it)"; exit 1; }
done
mkdir -p "$root"
exec 9>"$root/.lock"
flock 9

# buildah's configuration, all of it ours (runc: crun refuses the hybrid cgroups; cgroupfs: no systemd;
# ulimits below the host's hard nofile limit).
conf="$root/conf"
mkdir -p "$conf" "$root/storage" "$root/run" "$root/tmp" "$root/cni"
cat >"$conf/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
netns = "host"
[network]
network_config_dir = "$root/cni"
cni_plugin_dirs = ["/usr/lib/cni"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "none"
tmp_dir = "$root/tmp"
EOF
cat >"$conf/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$root/storage"
runroot = "$root/run"
EOF
printf 'unqualified-search-registries = []\n' >"$conf/registries.conf"
printf '{"default":[{"type":"insecureAcceptAnything"}]}\n' >"$conf/policy.json"
export CONTAINERS_CONF="$conf/containers.conf" CONTAINERS_STORAGE_CONF="$conf/storage.conf"
export CONTAINERS_REGISTRIES_CONF="$conf/registries.conf" TMPDIR="$root/tmp" BUILDAH_ISOLATION=oci
bh() { buildah "$@"; }
policy=(--signature-policy "$conf/policy.json")
# overlay keeps its layer mounts (and a private bind of its home) after buildah exits: undo them.
unmount_storage() {
  local m
  for m in $(awk -v r="$root/" 'index($5, r) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
}
# containers/image writes its blob-info cache to /var/lib/containers/cache for root whatever the config
# says: remove it again when it was not there before.
had_var_lib_containers=0
[ -e /var/lib/containers ] && had_var_lib_containers=1
cleanup() {
  unmount_storage
  [ "$had_var_lib_containers" = 1 ] || rm -rf /var/lib/containers
}
trap cleanup EXIT

# The machine's Debian mirror and security mirror (deb822 or one-line sources).
mirror_of() {
  { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } |
    awk -v want="$1" '
      /^URIs:/ { uri = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == want) { print uri; exit } }
      /^deb / { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) { u = $i; s = $(i + 1); break }
                if (s == want) { print u; exit } }'
}
mirror=$(mirror_of bookworm)
security=$(mirror_of bookworm-security)
[ -n "$mirror" ] || { log "no bookworm mirror in /etc/apt/sources.list*"; exit 1; }

base_key=$( (echo "minbase bookworm $mirror $security"; sed -n '/^build_base()/,/^}/p' "${BASH_SOURCE[0]}") |
  sha256sum | cut -c1-16)
build_base() {
  local rootfs="$root/tmp/rootfs-$base_key"
  if [ ! -f "$rootfs.done" ]; then
    rm -rf "$rootfs"
    log "debootstrap --variant=minbase bookworm from $mirror"
    debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$root/debootstrap.log" 2>&1 ||
      { log "debootstrap failed: see $root/debootstrap.log"; exit 1; }
    touch "$rootfs.done"
  fi
  {
    echo "deb $mirror bookworm main"
    echo "deb $mirror bookworm-updates main"
    [ -z "$security" ] || echo "deb $security bookworm-security main"
  } >"$rootfs/etc/apt/sources.list"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  local c
  c=$(bh from "${policy[@]}" --quiet scratch)
  tar --numeric-owner -C "$rootfs" -cf "$root/tmp/rootfs.tar" .
  bh add --quiet "$c" "$root/tmp/rootfs.tar" / >/dev/null
  bh config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd /bin/bash "$c"
  bh commit --quiet --rm "$c" "$BASE" >/dev/null
  rm -rf "$rootfs" "$rootfs.done" "$root/tmp/rootfs.tar"
  echo "$base_key" >"$root/base.key"
}
if [ "$(cat "$root/base.key" 2>/dev/null)" = "$base_key" ] && bh inspect --type image "$BASE" >/dev/null 2>&1; then
  log "base $BASE cached"
else
  build_base
  log "base $BASE committed"
fi

# The build context: exactly the files the Containerfile copies, at their repo paths.
ctx="$root/context"
rm -rf "$ctx" && mkdir -p "$ctx/.tools/node/bin" "$ctx/e2e/local/image" "$ctx/lib/launcher/converter/testdata"
node "$repo/scripts/build.mjs" "$ctx/dist" >&2
cp "$repo/.tools/node/bin/node" "$ctx/.tools/node/bin/node"
virtiofsd=$(bash "$here/build-virtiofsd.sh" | tail -n 1)
cp "$virtiofsd/bin/virtiofsd" "$ctx/.tools/virtiofsd"
cp "$here/check.sh" "$ctx/e2e/local/image/check.sh"
cp "$repo/lib/launcher/converter/testdata/kernel-boot-tcg.in.json" "$ctx/lib/launcher/converter/testdata/"
cp "$repo/Containerfile" "$ctx/Containerfile"
key=$( (echo "$base_key"; cd "$ctx" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16)
out="$root/$key"
if [ -f "$out/image.tar" ]; then
  log "cached image $IMAGE in $out"
  echo "$out"
  exit 0
fi
log "building $IMAGE (key $key)"
bh bud "${policy[@]}" --pull=never --network host --layers=true -f "$ctx/Containerfile" -t "$IMAGE" "$ctx" \
  >"$root/build.log" 2>&1 || { log "buildah bud failed: tail of $root/build.log:"; tail -n 30 "$root/build.log" >&2; exit 1; }
grep -E '^image-check: |IMAGE-CHECK-OK' "$root/build.log" | sed 's/^/[image]      /' >&2 || true
mkdir -p "$out.tmp"
rm -f "$out.tmp/image.tar"
bh push "${policy[@]}" --quiet "$IMAGE" "oci-archive:$out.tmp/image.tar:$IMAGE" >/dev/null
bh inspect --type image --format '{{.FromImageID}}' "$IMAGE" >"$out.tmp/image-id" 2>/dev/null || true
rm -rf "$out" && mv "$out.tmp" "$out"
log "built $IMAGE: $(du -h "$out/image.tar" | cut -f1) OCI archive"
echo "$out"
