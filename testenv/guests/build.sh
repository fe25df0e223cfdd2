#!/usr/bin/env bash
# Builds the kubevirt-ts test guests from Debian packages (apt-get download + dpkg-deb -x; nothing is
# installed on the host) and caches them outside the repo under
# ${KV_CACHE_DIR:-$HOME/.cache/kubevirt-ts}/guests/<key>, key = hash of this script, init.sh and the
# candidate versions of every package used. A warm run with unchanged apt lists returns at once; after
# an apt-get update it asks apt-cache for versions (a few seconds) and rebuilds only if one changed.
#   vmlinux                  uncompressed kernel (ELF, boots through its PVH entry with -kernel)
#   initramfs.cpio.gz        busybox + /init (prints the marker on ttyS0; ACPI power button powers off;
#                            DHCP (and DHCPv6 by ISC dhclient) on a virtio-net eth0, echo services through
#                            inetutils-inetd)
#   initramfs-agent.cpio.gz  the same plus virtio disk and virtiofs modules, qemu-ga, dropbear (with
#                            sftp-server, for scp) and their libraries
#   data.ext4.qcow2          16 MiB ext4 disk (label kvts-data) for the agent variant
#   manifest.json            package versions, kernel release, sizes
# Prints the cache directory on stdout's last line; progress goes to stderr.
# KV_GUEST_KERNEL_FLAVOUR picks the Debian kernel flavour (default cloud-amd64: smaller, virtio as modules).
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin" LC_ALL=C
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
flavour=${KV_GUEST_KERNEL_FLAVOUR:-cloud-amd64}
MARKER=KUBEVIRT-TS-GUEST-READY
# Modules the agent image loads (with their dependencies, in order); built-in ones are skipped. virtio_scsi
# and sd_mod let the guest see disks hotplugged on the SCSI bus, sr_mod CD-ROMs there; virtio_mem lets it take
# memory hotplugged through a virtio-mem device, virtiofs (with fuse) mounts a VMI's filesystems.
AGENT_MODULES=(virtio_pci virtio_console virtio_blk virtio_scsi sd_mod sr_mod crc32c_generic ext4 virtio_mem
  fuse virtiofs)
# Both images: the ACPI power button (a module in the cloud kernel) and evdev, through which busybox acpid
# sees its key press (the kernel has no /proc/acpi/event).
BUTTON_MODULES=(button evdev)
# Both images: a virtio-net NIC appears as eth0 (virtio_net pulls in net_failover and failover).
NET_MODULES=(virtio_pci virtio_net)
log() { printf '[guests] %3ds %s\n' "$SECONDS" "$*" >&2; }
die() { log "$*"; exit 1; }
# shellcheck source=testenv/guests/lib-build.sh
source "$here/lib-build.sh"

# Decompressors (lz4 for the cloud kernel, xz-utils or zstd for others) are checked when needed.
for tool in apt-cache apt-get dpkg-deb mkfs.ext4 qemu-img gzip sha256sum flock; do
  command -v "$tool" >/dev/null || die "$tool is not on PATH (apt packages: e2fsprogs qemu-utils gzip coreutils util-linux)"
done

root="${KV_CACHE_DIR:-$HOME/.cache/kubevirt-ts}/guests"
mkdir -p "$root"
# Warm path without apt-cache: the key resolved last time holds while these inputs and apt's package
# lists (and pinning) are unchanged.
fingerprint=$( (cat "${BASH_SOURCE[0]}" "$here/lib-build.sh" "$here/init.sh" "$here/udhcpc.script" "$here/dhclient6.script"
  echo "$flavour"
  stat -c '%n %s %Y' /var/lib/apt/lists/*_Packages* /etc/apt/preferences* 2>/dev/null || true) |
  sha256sum | cut -c1-16)
if [ -f "$root/.resolved-$fingerprint" ]; then
  out=$(cat "$root/.resolved-$fingerprint")
  if [ -f "$out/manifest.json" ]; then
    log "cached guests in $out"
    echo "$out"
    exit 0
  fi
fi

# Package set: busybox-static, the Depends closure of qemu-guest-agent and dropbear-bin (their shared
# libraries; pre-depends are install-time only), inetutils-inetd, isc-dhcp-client and openssh-sftp-server alone
# (their binaries need only libc, which that closure holds; their Depends are init-script helpers, iproute2 and
# the ssh client) and the versioned kernel image behind the
# flavour metapackage. Two apt-cache calls only: without a pkgcache (Docker images) each one rebuilds the
# cache, about a second.
mapfile -t agent_pkgs < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
  --no-breaks --no-replaces --no-enhances --no-pre-depends qemu-guest-agent dropbear-bin |
  grep -E '^[a-z0-9]' | sort -u)
[ ${#agent_pkgs[@]} -gt 1 ] || die "apt-cache knows no qemu-guest-agent or dropbear-bin (run apt-get update?)"
declare -A version
kdep=""
p=""
while IFS= read -r line; do
  case $line in
    "Package: "*) p=${line#Package: } ;;
    "Version: "*) version[$p]=${line#Version: } ;;
    "Depends: "*) [ "$p" != "linux-image-$flavour" ] || kdep=${line#Depends: } ;;
  esac
done < <(apt-cache show --no-all-versions "linux-image-$flavour" busybox-static inetutils-inetd isc-dhcp-client openssh-sftp-server \
  "${agent_pkgs[@]}")
# Depends: linux-image-6.1.0-57-cloud-amd64 (= 6.1.192-3)
kpkg=${kdep%% *}
[[ $kpkg == linux-image-[0-9]* ]] || die "no kernel package behind linux-image-$flavour (run apt-get update?)"
release=${kpkg#linux-image-}
version[$kpkg]=${version[linux-image-$flavour]}
pkgs=("$kpkg" busybox-static inetutils-inetd isc-dhcp-client openssh-sftp-server "${agent_pkgs[@]}")
for p in "${pkgs[@]}"; do [ -n "${version[$p]:-}" ] || die "no candidate version for $p"; done

key=$( (cat "${BASH_SOURCE[0]}" "$here/lib-build.sh" "$here/init.sh" "$here/udhcpc.script" "$here/dhclient6.script"
  for p in "${pkgs[@]}"; do echo "$p=${version[$p]}"; done) | sha256sum | cut -c1-16)
out="$root/$key"
exec 9>"$root/.lock-$key"
flock 9
if [ -f "$out/manifest.json" ]; then
  echo "$out" >"$root/.resolved-$fingerprint"
  log "cached guests in $out"
  echo "$out"
  exit 0
fi
start=$(date +%s.%N)
work=$(mktemp -d "$root/.build-$key.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debs" "$work/out"

log "downloading ${#pkgs[@]} packages (kernel $kpkg ${version[$kpkg]})"
apt_opts=()
[ "$(id -u)" = 0 ] && apt_opts+=(-o APT::Sandbox::User=root)
specs=()
for p in "${pkgs[@]}"; do specs+=("$p=${version[$p]}"); done
(cd "$work/debs" && apt-get "${apt_opts[@]}" -q download "${specs[@]}" >/dev/null) || die "apt-get download failed"
deb() { local f=("$work/debs/${1}_"*.deb); echo "${f[0]}"; }

log "extracting the kernel"
dpkg-deb -x "$(deb "$kpkg")" "$work/kernel"
extract_vmlinux "$work/kernel/boot/vmlinuz-$release" "$work/out/vmlinux" ||
  die "could not extract vmlinux from vmlinuz-$release (is its decompressor installed: lz4, xz-utils, zstd?)"

dpkg-deb -x "$(deb busybox-static)" "$work/busybox"
bb="$work/busybox/bin/busybox"

mkdir -p "$work/sysroot"
for p in inetutils-inetd isc-dhcp-client openssh-sftp-server "${agent_pkgs[@]}"; do dpkg-deb -x "$(deb "$p")" "$work/sysroot"; done

log "building initramfs.cpio.gz"
make_base_tree "$work/plain" "$bb" "$here/init.sh"
add_modules "$work/plain" "$work/kernel/lib/modules/$release" "${BUTTON_MODULES[@]}" "${NET_MODULES[@]}"
add_net_services "$work/plain" "$work/sysroot" "$here/udhcpc.script" "$here/dhclient6.script"
pack_cpio "$work/plain" "$bb" "$work/out/initramfs.cpio.gz"

log "building initramfs-agent.cpio.gz (${AGENT_MODULES[*]}, qemu-ga, dropbear, sftp-server)"
make_base_tree "$work/agent" "$bb" "$here/init.sh"
add_modules "$work/agent" "$work/kernel/lib/modules/$release" "${BUTTON_MODULES[@]}" "${NET_MODULES[@]}" \
  "${AGENT_MODULES[@]}"
add_net_services "$work/agent" "$work/sysroot" "$here/udhcpc.script" "$here/dhclient6.script"
add_program "$work/agent" "$work/sysroot" usr/sbin/qemu-ga
add_program "$work/agent" "$work/sysroot" usr/sbin/dropbear
# scp and sftp: Debian's dropbear runs its sftp subsystem from /usr/lib/sftp-server.
add_program "$work/agent" "$work/sysroot" usr/lib/openssh/sftp-server
mv "$work/agent/usr/lib/openssh/sftp-server" "$work/agent/usr/lib/sftp-server"
rmdir "$work/agent/usr/lib/openssh"
# What qemu-ga's guest-get-osinfo reads for the name, id and version (the handler reports guestOSInfo by name).
printf '%s\n' 'NAME="kubevirt-ts agent guest"' 'ID=kvts-agent' 'VERSION="1 (test)"' 'VERSION_ID=1' \
  'PRETTY_NAME="kubevirt-ts agent guest 1"' >"$work/agent/etc/os-release"
pack_cpio "$work/agent" "$bb" "$work/out/initramfs-agent.cpio.gz"

log "building data.ext4.qcow2"
make_data_disk "$work/data" "$work/out/data.ext4.qcow2"

elapsed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
write_manifest "$work/out" >"$work/out/manifest.json"
chmod -R a+rX "$work/out"
rm -rf "$out"
mv "$work/out" "$out"
echo "$out" >"$root/.resolved-$fingerprint"
log "built in ${elapsed}s: $(cd "$out" && du -h -- * | awk '{ printf "%s %s  ", $2, $1 }')"
echo "$out"
