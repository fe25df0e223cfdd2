/**
 * What the handler's device plugins advertise and grant, as data (kubevirt pkg/virt-handler/device-manager:
 * PermanentHostDevicePlugins, GenericDevicePlugin, SocketDevicePlugin; pkg/storage/reservation/pr.go):
 * - kvm (/dev/kvm), tun (/dev/net/tun) and vhost-net (/dev/vhost-net): a device node per container,
 *   healthy while the node exists on the host; tun and vhost-net are opened once first, which loads their
 *   kernel modules;
 * - pr-helper: qemu-pr-helper's socket dir bind-mounted, healthy while the socket exists.
 * Each advertises `maxDevices` identical devices `<name>0…` (KubeVirt's --max-devices, default 1000), all
 * with the one health of the thing they share. Pure: the IO is in plugin.ts.
 */
import path from 'node:path';
import {
  KVM_DEVICE,
  PR_HELPER_DEVICE,
  TUN_DEVICE,
  VHOST_NET_DEVICE,
} from '../../kubevirt/device-resources.ts';
import {
  HEALTHY,
  UNHEALTHY,
  type AllocateRequest,
  type AllocateResponse,
  type ContainerAllocateResponse,
  type Device,
  type DeviceHealth,
} from './kubelet-api.ts';

export const DEFAULT_MAX_DEVICES = 1000;

/** What a container that gets one of the plugin's devices receives. */
type Grant =
  | {
      readonly kind: 'device';
      readonly hostPath: string;
      readonly containerPath: string;
      readonly permissions: string;
    }
  | { readonly kind: 'mount'; readonly hostPath: string; readonly containerPath: string };

export interface DevicePluginSpec {
  /** kvm, tun, vhost-net, pr-helper: the device id prefix. */
  readonly name: string;
  readonly resourceName: string;
  /** File name of the plugin's socket in the device-plugins dir (KubeVirt's `kubevirt-<name>.sock`). */
  readonly endpoint: string;
  /** The host path whose existence makes the devices healthy. */
  readonly healthPath: string;
  /** Opened (and closed) once before serving, to load a kernel module on first access. */
  readonly preOpen: boolean;
  readonly grant: Grant;
}

/** Where the device nodes are on the host as this process sees them (tests point them into a temp dir). */
export interface DevicePaths {
  readonly kvm: string;
  readonly tun: string;
  readonly vhostNet: string;
}

export const DEVICE_NODES: DevicePaths = { kvm: '/dev/kvm', tun: '/dev/net/tun', vhostNet: '/dev/vhost-net' };

/** qemu-pr-helper's socket inside its dir (lib/rpc/pod-layout.ts prHelperSocket). */
const PR_HELPER_SOCKET = 'pr-helper.sock';

export interface SpecOptions {
  readonly devices: DevicePaths;
  /** Device cgroup permissions of the device nodes. */
  readonly permissions: string;
  /** The pr-helper socket dir on the host as this process sees it; the launcher's path inside its Pod. */
  readonly prHelper?: { readonly hostDir: string; readonly containerDir: string };
}

function nodePlugin(
  name: string,
  resourceName: string,
  node: { host: string; container: string },
  o: SpecOptions,
): DevicePluginSpec {
  return {
    name,
    resourceName,
    endpoint: `kubevirt-${name}.sock`,
    healthPath: node.host,
    preOpen: name !== 'kvm',
    grant: { kind: 'device', hostPath: node.host, containerPath: node.container, permissions: o.permissions },
  };
}

/** The plugins the handler always runs (kvm, tun, vhost-net), then pr-helper when its dir is given. */
export function devicePluginSpecs(o: SpecOptions): DevicePluginSpec[] {
  const specs = [
    nodePlugin('kvm', KVM_DEVICE, { host: o.devices.kvm, container: DEVICE_NODES.kvm }, o),
    nodePlugin('tun', TUN_DEVICE, { host: o.devices.tun, container: DEVICE_NODES.tun }, o),
    nodePlugin(
      'vhost-net',
      VHOST_NET_DEVICE,
      { host: o.devices.vhostNet, container: DEVICE_NODES.vhostNet },
      o,
    ),
  ];
  if (o.prHelper === undefined) return specs;
  const { hostDir, containerDir } = o.prHelper;
  specs.push({
    name: 'pr-helper',
    resourceName: PR_HELPER_DEVICE,
    endpoint: 'kubevirt-pr-helper.sock',
    healthPath: path.join(hostDir, PR_HELPER_SOCKET),
    preOpen: false,
    grant: { kind: 'mount', hostPath: hostDir, containerPath: containerDir },
  });
  return specs;
}

/**
 * Device cgroup permissions: "rw", or "rwm" under cgroup v2, where runc's eBPF device filter otherwise denies
 * the access(2) probe virtqemud makes (kubevirt pkg/virt-handler/vm.go).
 */
export function devicePermissions(cgroupV2: boolean): string {
  return cgroupV2 ? 'rwm' : 'rw';
}

export function healthOf(present: boolean): DeviceHealth {
  return present ? HEALTHY : UNHEALTHY;
}

/** The list ListAndWatch sends: `<name>0` … `<name><count-1>`, all with the same health. */
export function deviceList(name: string, count: number, health: DeviceHealth): Device[] {
  return Array.from({ length: count }, (_, i) => ({ ID: `${name}${i}`, health, topology: undefined }));
}

function containerResponse(grant: Grant): ContainerAllocateResponse {
  const base: ContainerAllocateResponse = {
    envs: {},
    mounts: [],
    devices: [],
    annotations: {},
    cdiDevices: [],
  };
  switch (grant.kind) {
    case 'device':
      return {
        ...base,
        devices: [
          { hostPath: grant.hostPath, containerPath: grant.containerPath, permissions: grant.permissions },
        ],
      };
    case 'mount':
      return {
        ...base,
        mounts: [{ hostPath: grant.hostPath, containerPath: grant.containerPath, readOnly: false }],
      };
  }
}

/**
 * One response per container of the request, in order, each granting the plugin's one device node or mount
 * however many ids the container got (the devices are interchangeable stand-ins for one shared thing).
 */
export function allocateResponse(spec: DevicePluginSpec, req: AllocateRequest): AllocateResponse {
  return { containerResponses: req.containerRequests.map(() => containerResponse(spec.grant)) };
}
