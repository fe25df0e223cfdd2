#!/bin/busybox sh
# PID 1 of the kubevirt-ts test guests (copied into both initramfs images by build.sh as /init).
# Mounts dev/proc/sys, loads the modules (ACPI button, evdev, virtio-net; virtio disks and console on the
# agent image) and starts busybox acpid (the power button powers off, see /etc/acpid.conf), on the agent
# image mounts /dev/vda at /mnt/data and starts qemu-ga on the org.qemu.guest_agent.0 port, then prints the
# marker line on the console (console=ttyS0). With a virtio-net NIC (eth0) it first takes a DHCP lease, starts the echo
# services (inetd) and, on the agent image, dropbear, and prints NET_MARKER with the address (or "none"); a
# DHCPv6 lease, when there is a server, comes later with its own console line (dhclient6.script).
# Cmdline flags: kvts.poweroff=1 powers off after the marker; otherwise a shell is offered on the console
# (respawned) so console tests can type into the guest. kvts.sshkey=<base64 of an authorized_keys line>
# gives root an ssh key (as does /mnt/data/authorized_keys). kvts.virtiofs=<tag> (repeatable, agent image)
# mounts that virtiofs tag at /mnt/<tag> and prints VIRTIOFS_MARKER with the tag and the first line of its
# `hello` file (or "mount-failed" / "no-hello") before the ready marker.
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
MARKER=KUBEVIRT-TS-GUEST-READY
NET_MARKER=KUBEVIRT-TS-GUEST-NET
VIRTIOFS_MARKER=KUBEVIRT-TS-GUEST-VIRTIOFS
QGA_PORT_NAME=org.qemu.guest_agent.0

/bin/busybox mount -t devtmpfs devtmpfs /dev
# The archive has no /dev/console node (build.sh runs unprivileged): attach the console ourselves.
exec 0</dev/console 1>/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mkdir -p /dev/pts /run /tmp
mount -t devpts devpts /dev/pts
cmdline=" $(cat /proc/cmdline) "

has_flag() {
  case "$cmdline" in *" $1 "*) return 0 ;; esac
  return 1
}

load_modules() {
  release=$(uname -r)
  for m in $(cat "/lib/modules/$release/load-order" 2>/dev/null); do
    insmod "/lib/modules/$release/$m.ko" || echo "kvts: insmod $m failed"
  done
}

# acpid opens the /dev/input/event* nodes present when it starts (so after the modules) and writes its
# pid file once they are open: the marker must mean "the power button works", so wait for it.
start_acpid() {
  acpid -c /etc/acpi -a /etc/acpid.conf -l /run/acpid.log -p /run/acpid.pid || echo "kvts: acpid failed"
  i=0
  while [ $i -lt 50 ] && [ ! -s /run/acpid.pid ]; do
    i=$((i + 1))
    sleep 0.1
  done
}

# The host names a port through the virtio-console control queue after the driver probed: poll.
find_agent_port() {
  [ -d /sys/bus/virtio/drivers/virtio_console ] || return 1
  i=0
  while [ $i -lt 50 ]; do
    for d in /sys/class/virtio-ports/vport*; do
      [ "$(cat "$d/name" 2>/dev/null)" = "$QGA_PORT_NAME" ] && echo "/dev/${d##*/}" && return 0
    done
    i=$((i + 1))
    sleep 0.1
  done
  return 1
}

start_agent() {
  data=absent
  if [ -b /dev/vda ]; then
    mkdir -p /mnt/data
    if mount -t ext4 /dev/vda /mnt/data; then data=mounted; else data=failed; fi
  fi
  agent=absent
  if port=$(find_agent_port); then
    mkdir -p /dev/virtio-ports /run/qemu-ga
    ln -sf "$port" "/dev/virtio-ports/$QGA_PORT_NAME"
    qemu-ga -m virtio-serial -p "$port" -t /run/qemu-ga -l /run/qemu-ga.log -f /run/qemu-ga.pid &
    pid=$!
    # The guest driver drops host data sent before the port is opened: the marker must mean "agent
    # listening", so wait until qemu-ga holds the port open.
    agent=failed
    i=0
    while [ $i -lt 50 ] && [ -d "/proc/$pid" ]; do
      if ls -l "/proc/$pid/fd" 2>/dev/null | grep -q "$port\$"; then
        agent=started
        break
      fi
      i=$((i + 1))
      sleep 0.1
    done
  fi
  extra=" data=$data agent=$agent"
}

# True once something listens on port $2 of /proc/net/$1 (tcp: LISTEN; udp: bound), polled up to 5 s.
wait_listening() {
  state=0A
  [ "$1" = udp ] && state=07
  # An IPv6 socket (inetd's echo services take both families) is listed in tcp6/udp6.
  pattern=$(printf ':%04X 0+:0000 %s' "$2" "$state")
  i=0
  while [ $i -lt 50 ]; do
    grep -qE "$pattern" "/proc/net/$1" "/proc/net/${1}6" 2>/dev/null && return 0
    i=$((i + 1))
    sleep 0.1
  done
  echo "kvts: nothing listens on $1 port $2"
  return 1
}

# Root's keys: the kvts.sshkey= line (base64, as the command line splits at spaces) and the data disk's
# authorized_keys. dropbear makes each host key on the first connection that asks for its type (-R) and
# takes keys only (-s).
start_ssh() {
  mkdir -p /root/.ssh /etc/dropbear
  chmod 0700 /root/.ssh
  keys=/root/.ssh/authorized_keys
  : >"$keys"
  chmod 0600 "$keys"
  for w in $cmdline; do
    case $w in kvts.sshkey=*) { echo "${w#kvts.sshkey=}" | base64 -d; echo; } >>"$keys" ;; esac
  done
  [ ! -f /mnt/data/authorized_keys ] || cat /mnt/data/authorized_keys >>"$keys"
  dropbear -R -s -E -p 22 -P /run/dropbear.pid 2>/run/dropbear.log || echo "kvts: dropbear failed"
  wait_listening tcp 22
}

# udhcpc gets a lease for eth0 (20 discovers a second apart at most, then it goes on in the background) and
# keeps renewing it; /etc/udhcpc/default.script applies it. With an address, the echo services and ssh start.
start_network() {
  ip link set lo up
  ip link set eth0 up
  udhcpc -i eth0 -p /run/udhcpc.pid -b -t 20 -T 1 -O mtu -O search -O staticroutes >/run/udhcpc.log 2>&1
  # DHCPv6 in the background: /etc/dhclient6.script prints NET6_MARKER when a lease comes (a Pod with IPv6),
  # never otherwise. dhclient stays in the foreground of this loop; it exits at once while eth0's link-local
  # address is still in duplicate address detection (slow on a loaded host), and is started again.
  (
    while :; do
      sleep 2
      dhclient -6 -d -cf /etc/dhclient6.conf -sf /etc/dhclient6.script -lf /run/dhclient6.leases \
        -pf /run/dhclient6.pid eth0 >>/run/dhclient6.log 2>&1
    done
  ) &
  net=$(ip -4 -o addr show dev eth0 | awk '{ print $4; exit }')
  if [ -z "$net" ]; then
    net=none
    return
  fi
  inetutils-inetd -p /run/inetd.pid /etc/inetd.conf || echo "kvts: inetd failed"
  wait_listening tcp 1500 && wait_listening udp 1501 && wait_listening tcp 1502
  [ ! -x /usr/sbin/dropbear ] || start_ssh
}

# Each kvts.virtiofs=<tag>: mount it at /mnt/<tag> and say what its hello file begins with.
mount_virtiofs() {
  for w in $cmdline; do
    case $w in kvts.virtiofs=*) ;; *) continue ;; esac
    tag=${w#kvts.virtiofs=}
    mkdir -p "/mnt/$tag"
    if ! mount -t virtiofs "$tag" "/mnt/$tag"; then
      echo "$VIRTIOFS_MARKER $tag mount-failed"
    elif [ -r "/mnt/$tag/hello" ]; then
      echo "$VIRTIOFS_MARKER $tag $(head -n 1 "/mnt/$tag/hello")"
    else
      echo "$VIRTIOFS_MARKER $tag no-hello"
    fi
  done
}

variant=plain
extra=""
net=""
# The kernel's "(none)" until DHCP names the guest.
hostname kvts-guest
load_modules
start_acpid
if [ -x /usr/sbin/qemu-ga ]; then
  variant=agent
  start_agent
fi
[ ! -d /sys/class/net/eth0 ] || start_network
echo
[ "$variant" != agent ] || mount_virtiofs
[ -z "$net" ] || echo "$NET_MARKER eth0 $net"
echo "$MARKER kernel=$(uname -r) variant=$variant$extra"

if has_flag kvts.poweroff=1; then
  sync
  poweroff -f
fi
while :; do
  setsid cttyhack sh -l
  sleep 1
done
