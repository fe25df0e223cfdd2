#!/usr/bin/env bash
# Builds the small local images as OCI layout tars (no registry, no container engine):
#   pause.tar        localhost/kubevirt-ts-pause:local        static pause (pause.c, gcc -static): the sandbox image
#   guest-disk.tar   localhost/kubevirt-ts-guest-disk:local   containerDisk: the one file /disk/disk.qcow2
#                                                             (the test guests' ext4 data disk)
#   guest-iso.tar    localhost/kubevirt-ts-guest-iso:local    containerDisk: the one file /disk/guest.iso, an ISO
#                                                             (xorriso) whose volume id is KVTSISO1
#   guest-kernel.tar localhost/kubevirt-ts-guest-kernel:local kernel boot: /boot/vmlinux, /boot/initramfs.cpio.gz,
#                                                             /boot/initramfs-agent.cpio.gz
# Cached under ${KV_CACHE_DIR:-~/.cache/kubevirt-ts}/images/<hash of inputs>; prints that dir last on stdout.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=e2e/local/image/oci.sh
source "$here/oci.sh"
log() { printf '[images] %s\n' "$*" >&2; }
guests=$(bash "$here/../../../testenv/guests/build.sh" | tail -n1)
key=$( (cat "${BASH_SOURCE[0]}" "$here/oci.sh" "$here/pause.c" "$guests/manifest.json"; gcc --version | head -n1) |
  sha256sum | cut -c1-16)
root="${KV_CACHE_DIR:-$HOME/.cache/kubevirt-ts}/images"
out="$root/$key"
mkdir -p "$root"
exec 9>"$root/.lock-$key"
flock 9
if [ -f "$out/pause.tar" ] && [ -f "$out/guest-disk.tar" ] && [ -f "$out/guest-iso.tar" ] &&
  [ -f "$out/guest-kernel.tar" ]; then
  log "cached images in $out"
  echo "$out"
  exit 0
fi
start=$SECONDS
work=$(mktemp -d "$root/.build-$key.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/out" "$work/pause" "$work/disk/disk" "$work/iso/disk" "$work/iso-src" "$work/kernel/boot"
gcc -static -Os -Wall -Wextra -Werror -o "$work/pause/pause" "$here/pause.c"
strip "$work/pause/pause"
oci_archive "$work/pause" localhost/kubevirt-ts-pause:local "$work/out/pause.tar" '["/pause"]'
cp "$guests/data.ext4.qcow2" "$work/disk/disk/disk.qcow2"
chmod 0644 "$work/disk/disk/disk.qcow2"
oci_archive "$work/disk" localhost/kubevirt-ts-guest-disk:local "$work/out/guest-disk.tar"
echo KVTS-HOTPLUG-ISO >"$work/iso-src/marker.txt"
xorriso -as mkisofs -quiet -V KVTSISO1 -o "$work/iso/disk/guest.iso" "$work/iso-src"
chmod 0644 "$work/iso/disk/guest.iso"
oci_archive "$work/iso" localhost/kubevirt-ts-guest-iso:local "$work/out/guest-iso.tar"
cp "$guests/vmlinux" "$guests/initramfs.cpio.gz" "$guests/initramfs-agent.cpio.gz" "$work/kernel/boot/"
chmod 0644 "$work/kernel/boot/"*
oci_archive "$work/kernel" localhost/kubevirt-ts-guest-kernel:local "$work/out/guest-kernel.tar"
rm -rf "$out" && mv "$work/out" "$out"
log "built in $((SECONDS - start))s: $(cd "$out" && du -h -- *.tar | awk '{ printf "%s %s  ", $2, $1 }')"
echo "$out"
