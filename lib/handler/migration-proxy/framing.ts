/**
 * What the migration proxies connect, pure (kubevirt pkg/virt-handler/migration-proxy GetMigrationPortsList,
 * ConstructProxyKey, GetTargetListenerPorts; migration-target.go handleTargetMigrationProxy; migration-source.go
 * handleSourceMigrationProxy; tag v1.6.2). Each migration tunnels the libvirt connection (port 0) and the QEMU
 * stream on libvirt's direct migration port, plus the block migration port when disks are copied. The target
 * handler listens on one node port per tunnel and publishes `migrationState.targetDirectMigrationNodePorts`
 * {"<node port>": <tunnelled port>}; the source handler reads it back and puts one unix socket per entry in the
 * source launcher Pod, named by the tunnelled port.
 */
import { isIP } from 'node:net';
import path from 'node:path';
import { KvError } from '../../kernel/errors/errors.ts';
import { libvirtLayout } from '../../libvirt/daemon/layout.ts';
import {
  LIBVIRT_BLOCK_MIGRATION_PORT,
  LIBVIRT_DIRECT_MIGRATION_PORT,
  LIBVIRT_RUNTIME_VOLUME,
  POD_LAYOUT,
  podVolumeOnNode,
  type LauncherOnNode,
  type PodPath,
} from '../../rpc/index.ts';

/** The libvirt connection's entry in the port map. */
const LIBVIRT_CONNECTION = 0;

type TunnelledPort =
  typeof LIBVIRT_CONNECTION | typeof LIBVIRT_DIRECT_MIGRATION_PORT | typeof LIBVIRT_BLOCK_MIGRATION_PORT;

const TUNNELLED: readonly TunnelledPort[] = [
  LIBVIRT_CONNECTION,
  LIBVIRT_DIRECT_MIGRATION_PORT,
  LIBVIRT_BLOCK_MIGRATION_PORT,
];

/** The tunnels of one migration, in order: libvirt, direct, and block when the disks are copied. */
function tunnelledPorts(blockMigration: boolean): TunnelledPort[] {
  return blockMigration
    ? [LIBVIRT_CONNECTION, LIBVIRT_DIRECT_MIGRATION_PORT, LIBVIRT_BLOCK_MIGRATION_PORT]
    : [LIBVIRT_CONNECTION, LIBVIRT_DIRECT_MIGRATION_PORT];
}

/** One target listener: the node port it holds and the tunnel it carries. */
export interface PortBinding {
  readonly nodePort: number;
  readonly tunnelled: TunnelledPort;
}

/** A tunnel's end on the target: the unix socket in the target launcher Pod it forwards to. */
export interface TargetSocket {
  readonly tunnelled: TunnelledPort;
  readonly at: PodPath;
}

/** The launcher's libvirt socket as the node sees it, in the Pod's `libvirt-runtime` emptyDir. */
export function libvirtSocketOnNode(kubeletPodsDir: string, podUid: string): PodPath {
  const inPod = libvirtLayout(POD_LAYOUT.root).socketPath;
  return {
    root: podVolumeOnNode(kubeletPodsDir, podUid, LIBVIRT_RUNTIME_VOLUME),
    rel: path.relative(POD_LAYOUT.libvirtRuntimeDir, inPod).split(path.sep),
  };
}

/**
 * The sockets the target tunnels lead to: libvirt's for the connection, and the target launcher's own
 * migration sockets (where its QEMU takes the incoming stream) for the data ports.
 */
export function targetSockets(
  launcher: LauncherOnNode,
  libvirtSocket: PodPath,
  o: { readonly uid: string; readonly blockMigration: boolean },
): TargetSocket[] {
  return tunnelledPorts(o.blockMigration).map((tunnelled) => ({
    tunnelled,
    at: tunnelled === LIBVIRT_CONNECTION ? libvirtSocket : launcher.migrationSocket(o.uid, tunnelled),
  }));
}

/** `migrationState.targetDirectMigrationNodePorts` of the target's listeners. */
export function portMap(bindings: readonly PortBinding[]): Record<string, number> {
  return Object.fromEntries(bindings.map((b) => [String(b.nodePort), b.tunnelled]));
}

function invalid(message: string): KvError {
  return new KvError('KV_ERR_INVALID', `migrationState.targetDirectMigrationNodePorts: ${message}`);
}

function binding(key: string, value: unknown): PortBinding {
  const nodePort = /^[1-9][0-9]{0,4}$/.test(key) ? Number(key) : NaN;
  if (!(nodePort <= 65535)) throw invalid(`${JSON.stringify(key)} is not a port`);
  const tunnelled = TUNNELLED.find((t) => t === value);
  if (tunnelled === undefined)
    throw invalid(`port ${key} carries ${JSON.stringify(value)}, not one of ${TUNNELLED.join(', ')}`);
  return { nodePort, tunnelled };
}

/**
 * The target's port map read back on the source, ordered by tunnel; [] while the target has not written it.
 * KV_ERR_INVALID when a key is no port, a value no tunnel, a tunnel appears twice, or libvirt's is missing.
 */
export function parsePortMap(map: Readonly<Record<string, unknown>> | undefined): PortBinding[] {
  const entries = Object.entries(map ?? {});
  if (entries.length === 0) return [];
  const bindings = entries.map(([k, v]) => binding(k, v));
  const seen = new Set<TunnelledPort>();
  for (const b of bindings) {
    if (seen.has(b.tunnelled)) throw invalid(`port ${b.tunnelled} is tunnelled twice`);
    seen.add(b.tunnelled);
  }
  if (!seen.has(LIBVIRT_CONNECTION)) throw invalid('no port carries the libvirt connection (0)');
  return bindings.sort((a, b) => a.tunnelled - b.tunnelled);
}

/** The target node's address as the source dials it: an IP address (KubeVirt's migration IP). */
export function parseTargetAddress(address: string | undefined): string {
  if (address === undefined || isIP(address) === 0)
    throw new KvError(
      'KV_ERR_INVALID',
      `migrationState.targetNodeAddress ${JSON.stringify(address ?? '')} is not an IP address`,
    );
  return address;
}

/** A tunnel's start on the source: the socket in the source launcher Pod and the target port it dials. */
export interface SourceSocket {
  readonly tunnelled: TunnelledPort;
  readonly at: PodPath;
  readonly nodePort: number;
}

export function sourceSockets(
  launcher: LauncherOnNode,
  uid: string,
  bindings: readonly PortBinding[],
): SourceSocket[] {
  return bindings.map((b) => ({
    tunnelled: b.tunnelled,
    at: launcher.migrationSocket(uid, b.tunnelled),
    nodePort: b.nodePort,
  }));
}
