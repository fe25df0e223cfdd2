#!/bin/sh
# The image's self-check (run as the build's last step and again in a Pod by e2e/local/image.itest.ts):
# virt --version, every role's --help, virtctl-ts --help, the launcher's domain XML for the example VMI in
# TCG emulation, the programs the launcher runs, and virtiofsd --version. Prints IMAGE-CHECK-OK last; exits non-zero on the
# first failure.
set -eu
virt=/opt/virt/dist/virt
say() { printf 'image-check: %s\n' "$*"; }
"$virt" --version
roles=$("$virt" --help | awk '/^Commands:/ { f = 1; next } f && /^  [a-z]/ && $1 != "help" { print $1 }')
[ -n "$roles" ] || { say "no roles in virt --help"; exit 1; }
for r in $roles; do
  "$virt" "$r" --help >/dev/null || { say "virt $r --help failed"; exit 1; }
  say "virt $r --help ok"
done
node /opt/virt/dist/virtctl-ts.mjs --help >/dev/null
say "virtctl-ts --help ok"
xml=$("$virt" launcher convert --vmi /opt/virt/testdata/kernel-boot-tcg.in.json --emulation)
printf '%s\n' "$xml" | grep -Eq '<domain type=.qemu.' || { say "convert: no TCG domain"; printf '%s\n' "$xml"; exit 1; }
say "virt launcher convert --emulation ok ($(printf '%s' "$xml" | wc -c) bytes of domain XML)"
for p in /usr/sbin/libvirtd /usr/sbin/virtlogd /usr/bin/qemu-system-x86_64 /usr/bin/qemu-img \
  /usr/bin/qemu-pr-helper /usr/bin/xorriso /usr/bin/tini /usr/bin/prlimit /usr/bin/nsenter /usr/bin/ip \
  /usr/sbin/nft /usr/bin/setpriv /usr/sbin/radvd /usr/bin/swtpm /usr/bin/swtpm_setup; do
  [ -x "$p" ] || { say "missing $p"; exit 1; }
done
/usr/bin/qemu-system-x86_64 --version | head -n1
v=$(/usr/libexec/virtiofsd --version) || { say "/usr/libexec/virtiofsd --version failed"; exit 1; }
say "$v ok"
for f in OVMF_CODE_4M.fd OVMF_CODE_4M.secboot.fd OVMF_VARS_4M.fd; do
  [ -r "/usr/share/OVMF/$f" ] || { say "missing /usr/share/OVMF/$f"; exit 1; }
done
getent passwd libvirt-qemu >/dev/null || { say "no libvirt-qemu user"; exit 1; }
say "programs, EFI firmware and the libvirt-qemu user ok"
echo IMAGE-CHECK-OK
