# Functions for build.sh (sourced; uses its log/die and, in write_manifest, its variables).
# shellcheck shell=bash

# Finds the compressed payload inside a bzImage by its magic bytes (the approach of the kernel's
# scripts/extract-vmlinux) and decompresses it. Decompressors complain about the bytes that follow the
# payload, so success is judged on the result: a complete ELF file.
extract_vmlinux() {
  local img=$1 dst=$2 spec magic cmd pos
  for spec in '\x02\x21\x4c\x18:lz4 -dc' '\xfd\x37\x7a\x58\x5a\x00:xz -dc' '\x28\xb5\x2f\xfd:zstd -dc' \
    '\x1f\x8b\x08:gzip -dc'; do
    magic=${spec%%:*}
    cmd=${spec#*:}
    command -v "${cmd%% *}" >/dev/null || continue
    for pos in $(grep -obUaP "$magic" "$img" | cut -d: -f1); do
      tail -c "+$((pos + 1))" "$img" | $cmd >"$dst" 2>/dev/null || true
      if elf_complete "$dst"; then
        log "vmlinux: ${cmd%% *} payload at offset $pos of ${img##*/}"
        return 0
      fi
    done
  done
  rm -f "$dst"
  return 1
}

# True when $1 is an x86-64 ELF whose section header table ends inside the file (not truncated).
elf_complete() {
  local f=$1 size shoff shentsize shnum
  [ "$(od -An -tx1 -N5 "$f" | tr -d ' \n')" = 7f454c4602 ] || return 1
  size=$(stat -c %s "$f")
  shoff=$(od -An -tu8 -j40 -N8 "$f" | tr -d ' ')
  shentsize=$(od -An -tu2 -j58 -N2 "$f" | tr -d ' ')
  shnum=$(od -An -tu2 -j60 -N2 "$f" | tr -d ' ')
  [ "$shnum" -gt 0 ] && [ $((shoff + shentsize * shnum)) -le "$size" ]
}

# A busybox root: applet symlinks made here (no --install at boot), /init, minimal /etc, and the
# busybox acpid configuration: the power button's event (PWRF) runs /etc/acpi/power-off.
make_base_tree() {
  local root=$1 bb=$2 init=$3 applet
  mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,run,tmp,mnt/data,etc,root}
  cp "$bb" "$root/bin/busybox"
  for applet in $("$bb" --list); do
    [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
  done
  install -m 0755 "$init" "$root/init"
  echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
  echo 'root:x:0:' >"$root/etc/group"
  mkdir -p "$root/etc/acpi"
  echo 'PWRF power-off' >"$root/etc/acpid.conf"
  printf '#!/bin/sh\necho "kvts: power button, powering off" >/dev/console\nsync\npoweroff -f\n' >"$root/etc/acpi/power-off"
  chmod 0755 "$root/etc/acpi/power-off"
}

# newc archive with every file owned by root (busybox cpio: no host cpio needed), gzip-compressed.
pack_cpio() {
  local root=$1 bb=$2 dst=$3
  (cd "$root" && find . -mindepth 1 | sort | "$bb" cpio -o -H newc -R 0:0 2>/dev/null) | gzip -9n >"$dst"
}

# Copies the named modules and their dependencies (read from each .ko's modinfo "depends=") flat
# into /lib/modules/<release>/, decompressed, and writes load-order (dependencies first) for /init.
# Modules listed in modules.builtin are skipped.
add_modules() {
  local root=$1 moddir=$2 f b m
  shift 2
  local dst="$root/lib/modules/${moddir##*/}"
  declare -gA KO_PATH=() KO_BUILTIN=() KO_SEEN=()
  KO_ORDER=()
  while IFS= read -r -d '' f; do
    b=${f##*/}
    b=${b%%.ko*}
    KO_PATH[${b//-/_}]=$f
  done < <(find "$moddir/kernel" -name '*.ko*' -print0)
  while IFS= read -r f; do
    b=${f##*/}
    b=${b%%.ko*}
    KO_BUILTIN[${b//-/_}]=1
  done <"$moddir/modules.builtin"
  mkdir -p "$dst"
  for m in "$@"; do add_module "$dst" "$m"; done
  : >"$dst/load-order"
  for m in "${KO_ORDER[@]}"; do echo "$m" >>"$dst/load-order"; done
  log "modules of ${root##*/}: ${KO_ORDER[*]:-none}"
}

add_module() {
  local dst=$1 name=${2//-/_} src dep
  [ -z "${KO_SEEN[$name]:-}" ] || return 0
  KO_SEEN[$name]=1
  [ -z "${KO_BUILTIN[$name]:-}" ] || return 0
  src=${KO_PATH[$name]:-}
  [ -n "$src" ] || die "kernel module $name not found"
  case "$src" in
    *.xz) xz -dc "$src" ;;
    *.zst) zstd -dc "$src" ;;
    *.gz) gzip -dc "$src" ;;
    *) cat "$src" ;;
  esac >"$dst/$name.ko"
  for dep in $(tr '\0' '\n' <"$dst/$name.ko" | sed -n 's/^depends=//p' | head -1 | tr ',' ' '); do
    add_module "$dst" "$dep"
  done
  KO_ORDER+=("$name")
}

# Copies $3 (a path relative to the sysroot $2) and the shared libraries it needs into $1. The
# sysroot's own dynamic loader lists them (ld.so --list), so the host's libraries are never used.
add_program() {
  local root=$1 sys=$2 prog=$3 ld name path libdir="lib/x86_64-linux-gnu"
  for ld in "$sys"/{usr/,}lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 ""; do [ -z "$ld" ] || [ -e "$ld" ] && break; done
  [ -n "$ld" ] || die "no ld-linux-x86-64.so.2 in the sysroot"
  mkdir -p "$root/$libdir" "$root/lib64" "$root/${prog%/*}"
  cp "$sys/$prog" "$root/$prog"
  while read -r name path; do
    case "$path" in "$sys"/*) ;; *) die "${prog##*/} needs $name, not found in the sysroot ($path)" ;; esac
    cp -L "$path" "$root/$libdir/${name##*/}"
  done < <("$ld" --list --library-path "$sys/$libdir:$sys/usr/$libdir" "$sys/$prog" |
    awk '$2 == "=>" { print $1, $3 }')
  ln -sf "../$libdir/ld-linux-x86-64.so.2" "$root/lib64/ld-linux-x86-64.so.2"
}

# What /init needs for the network (see its start_network): the udhcpc event script $3, and inetd from the
# sysroot $2 with its configuration. inetd's internal echo service answers TCP 1500 and UDP 1501 (an
# internal service goes by its official name, so /etc/services puts echo on those ports) and busybox
# hostname answers TCP 1502. glibc (inetd, dropbear) reads ports, protocols and users from these files.
add_net_services() {
  local root=$1 sys=$2 script=$3 script6=$4
  install -D -m 0755 "$script" "$root/etc/udhcpc/default.script"
  install -D -m 0755 "$script6" "$root/etc/dhclient6.script"
  : >"$root/etc/dhclient6.conf"
  add_program "$root" "$sys" usr/sbin/inetutils-inetd
  add_program "$root" "$sys" sbin/dhclient
  # tcp6/udp6: inetutils' IPv6 sockets take IPv4 too (v4-mapped), so one socket serves both families.
  printf '%s\n' 'echo stream tcp6 nowait root internal' 'echo dgram udp6 wait root internal' \
    '1502 stream tcp nowait root /bin/hostname hostname' >"$root/etc/inetd.conf"
  printf '%s\n' 'echo 1500/tcp' 'echo 1501/udp' >"$root/etc/services"
  printf '%s\n' 'ip 0 IP' 'tcp 6 TCP' 'udp 17 UDP' >"$root/etc/protocols"
  printf '%s\n' 'passwd: files' 'group: files' 'shadow: files' 'hosts: files dns' 'services: files' \
    'protocols: files' >"$root/etc/nsswitch.conf"
  echo '127.0.0.1 localhost' >"$root/etc/hosts"
  echo /bin/sh >"$root/etc/shells"
}

# 16 MiB ext4 image with a README at its root, converted to qcow2 (callers boot it with an overlay
# or snapshot=on so the cached image stays pristine).
make_data_disk() {
  local dir=$1 dst=$2
  mkdir -p "$dir/content"
  echo "kubevirt-ts test data disk" >"$dir/content/README"
  truncate -s 16M "$dir/data.raw"
  mkfs.ext4 -q -F -L kvts-data -U 6b766d74-7300-4000-8000-000000000001 -E root_owner=0:0 \
    -d "$dir/content" "$dir/data.raw"
  qemu-img convert -f raw -O qcow2 "$dir/data.raw" "$dst"
}

json_pairs() {
  local sep="" k
  for k in "$@"; do
    printf '%s\n    "%s": %s' "$sep" "${k%%=*}" "${k#*=}"
    sep=","
  done
}

write_manifest() {
  local o=$1 p f entries=() files=() mods=""
  for p in "${pkgs[@]}"; do entries+=("$p=\"${version[$p]}\""); done
  for f in vmlinux initramfs.cpio.gz initramfs-agent.cpio.gz data.ext4.qcow2; do
    files+=("$f=$(stat -c %s "$o/$f")")
  done
  for p in "${KO_ORDER[@]}"; do mods+="${mods:+, }\"$p\""; done
  printf '{\n  "key": "%s",\n  "marker": "%s",\n' "$key" "$MARKER"
  printf '  "kernel": { "package": "%s", "version": "%s", "release": "%s", "flavour": "%s" },\n' \
    "$kpkg" "${version[$kpkg]}" "$release" "$flavour"
  printf '  "agentModules": [%s],\n' "$mods"
  printf '  "packages": {%s\n  },\n' "$(json_pairs "${entries[@]}")"
  printf '  "fileBytes": {%s\n  },\n' "$(json_pairs "${files[@]}")"
  printf '  "buildSeconds": %s\n}\n' "$elapsed"
}
