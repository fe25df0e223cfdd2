/**
 * Extended resources of the handler's device plugins, which the controller puts in the launcher Pod's limits.
 * KubeVirt's devices.kubevirt.io/<device> (pkg/virt-handler/device-manager DeviceNamespace, pkg/storage/
 * reservation prResourceName "pr-helper") under Deckhouse's namespace. Wire constants, hence UPPER_SNAKE.
 */

const DEVICE_RESOURCE_PREFIX = 'devices.virtualization.deckhouse.io/';
export const KVM_DEVICE = `${DEVICE_RESOURCE_PREFIX}kvm`;
export const TUN_DEVICE = `${DEVICE_RESOURCE_PREFIX}tun`;
export const VHOST_NET_DEVICE = `${DEVICE_RESOURCE_PREFIX}vhost-net`;
export const VHOST_VSOCK_DEVICE = `${DEVICE_RESOURCE_PREFIX}vhost-vsock`;
/** The socket plugin that hands qemu-pr-helper's socket dir to launchers with reserved LUNs. */
export const PR_HELPER_DEVICE = `${DEVICE_RESOURCE_PREFIX}pr-helper`;
