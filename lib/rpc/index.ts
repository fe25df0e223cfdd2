/**
 * The handler <-> launcher contract (kubevirt pkg/handler-launcher-com): the launcher Pod's path layout,
 * unix-socket listening, Cmd/Notify servers and clients with deadlines and version negotiation. The generated
 * wire types live in ./gen (regenerate with `npm run gen:proto`).
 */
export {
  POD_LAYOUT,
  PRIVATE_VOLUME,
  PUBLIC_VOLUME,
  SOCKETS_VOLUME,
  HOTPLUG_DISKS_VOLUME,
  LIBVIRT_RUNTIME_VOLUME,
  LIBVIRT_BLOCK_MIGRATION_PORT,
  LIBVIRT_DIRECT_MIGRATION_PORT,
  launcherOnNode,
  launcherSocketOnNode,
  podPathText,
  podVolumeOnNode,
  type LauncherOnNode,
  type PodPath,
  podLayout,
  type ConfigVolumeKind,
  type PodLayout,
} from './pod-layout.ts';
export { listenUnix, openSocket, shutdownServer, unixTarget } from './listen.ts';
export { isDisconnected } from './errors.ts';
export { type CmdResult } from './results.ts';
export { newCmdServer, ok, failed, type CmdHandlers } from './cmd-server.ts';
export { LauncherClient, newCmdClient, type PayloadResult, type VmiCommand } from './cmd-client.ts';
export {
  decodeDomainEvent,
  newNotifyServer,
  type DomainEvent,
  type NotifyHandlers,
} from './notify-server.ts';
export { NotifyClient, newNotifyClient } from './notify-client.ts';
export {
  AGENT_CHANNEL,
  DOMAIN_API_VERSION,
  EMPTY_GUEST_OS_INFO,
  type AliasJson,
  type DiskJson,
  type HostDeviceJson,
  type DomainJson,
  type DomainSpecJson,
  type GuestOsInfoJson,
  type InterfaceJson,
  type InterfaceStatusJson,
  type LifeCycle,
  type MigrationMetadataJson,
} from './domain-json.ts';
export { VirtualMachineOptions } from './gen/kubevirt/cmd/v1/cmd.ts';
/** The Cmd service's request and response messages (kubevirt.cmd.v1). */
export type * as CmdMessages from './gen/kubevirt/cmd/v1/cmd.ts';
export { NODE_LABEL_PREFIXES, NODE_LABELLER_FILES, type HostModel, type NodeFacts } from './node-facts.ts';
export { vmiSpecChecksum } from './checksum.ts';
export { containerDiskFile } from './container-disk-file.ts';
export { attachFailureMessage, parseAttachFailure, type AttachFailure } from './attach-failure.ts';
