#!/bin/busybox sh
# PID 1 of the kubevirt-ts test guests (copied into both initramfs images by build.sh as /init).
# Mounts dev/proc/sys, loads the modules (ACPI button and evdev; virtio on the agent image) and starts
# busybox acpid (the power button powers off, see /etc/acpid.conf), on the agent image mounts /dev/vda
# at /mnt/data and starts qemu-ga on the org.qemu.guest_agent.0 port, then prints the marker line on the
# console (console=ttyS0). Cmdline flags: kvts.poweroff=1 powers off after the marker; otherwise a shell is
# offered on the console (respawned) so console tests can type into the guest.
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
MARKER=KUBEVIRT-TS-GUEST-READY
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

variant=plain
extra=""
load_modules
start_acpid
if [ -x /usr/sbin/qemu-ga ]; then
  variant=agent
  start_agent
fi
echo
echo "$MARKER kernel=$(uname -r) variant=$variant$extra"

if has_flag kvts.poweroff=1; then
  sync
  poweroff -f
fi
while :; do
  setsid cttyhack sh -l
  sleep 1
done
