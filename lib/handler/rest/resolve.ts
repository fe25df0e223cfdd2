/**
 * How the REST server finds what a request names (kubevirt pkg/virt-handler/rest: getVMI over the handler's
 * VMI store, cmdclient.FindSocket, the isolation detector's socket paths). The server sees only the
 * RestResolver; nodeResolver is the handler's: the VMI informer cache of this node, its LauncherClients
 * (shared with the VMI controller, so the server never closes a client), and the VMI's serial and VNC sockets in
 * the launcher Pod's `private` emptyDir under the kubelet's pods dir (lib/rpc launcherOnNode). That emptyDir is
 * the tenant's: a socket is named as a PodPath (the kubelet's root, the tenant's names below it), and the dial
 * (upgrade.ts) opens it without following a symlink.
 */
import { lstatSync } from 'node:fs';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { podPathText, type LauncherClient, type PodPath } from '../../rpc/index.ts';
import type { LauncherClients } from '../launchers/clients.ts';
import { noCommandSocket, noUnixSocket, type RestError } from './errors.ts';
import type { StreamRoute } from './routes.ts';

/** The launcher calls the lifecycle routes make. */
export type LifecycleLauncher = Pick<
  LauncherClient,
  'vmiCommand' | 'freezeVirtualMachine' | 'getGuestInfo' | 'getUsers' | 'getFilesystems'
>;

export interface RestResolver {
  /** The VMI the handler knows by namespace and name; undefined when it is not this node's. */
  vmi(namespace: string, name: string): VirtualMachineInstance | undefined;
  /** The VMI's launcher, connected, or why there is none (KubeVirt answers 500). */
  launcher(vmi: VirtualMachineInstance): Promise<LifecycleLauncher | RestError>;
  /** Where the VMI's serial (`console`) or VNC socket is, or why there is none (KubeVirt answers 400). */
  socket(vmi: VirtualMachineInstance, kind: StreamRoute): PodPath | RestError;
  /** Where the launcher's port-forward socket is (lib/rpc/port-forward.ts), or why there is none. */
  portForwardSocket(vmi: VirtualMachineInstance): PodPath | RestError;
}

export interface NodeResolverOptions {
  /** The handler's VMI cache (SharedInformer.store), keyed `namespace/name`. */
  readonly vmis: { get(key: string): VirtualMachineInstance | undefined };
  readonly launchers: Pick<LauncherClients, 'client' | 'paths'>;
}

/**
 * KubeVirt's os.Stat before the dial, for its 400 when nothing is there. Only that is decided here: whatever is
 * there, the dial opens it without following a symlink and says why it refuses it.
 */
function present(p: string): boolean {
  try {
    return lstatSync(p, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

export function nodeResolver(o: NodeResolverOptions): RestResolver {
  return {
    vmi: (namespace, name): VirtualMachineInstance | undefined => o.vmis.get(`${namespace}/${name}`),
    launcher: async (vmi): Promise<LifecycleLauncher | RestError> => {
      const client = await o.launchers.client(vmi);
      return client ?? noCommandSocket(vmi.metadata.uid ?? '', 500);
    },
    socket: (vmi, kind): PodPath | RestError => {
      const uid = vmi.metadata.uid ?? '';
      const paths = o.launchers.paths(vmi);
      if (paths === undefined || uid === '') return noCommandSocket(uid, 400);
      const socket = kind === 'console' ? paths.serialSocket(uid) : paths.vncSocket(uid);
      return present(podPathText(socket)) ? socket : noUnixSocket(podPathText(socket));
    },
    portForwardSocket: (vmi): PodPath | RestError => {
      const paths = o.launchers.paths(vmi);
      if (paths === undefined) return noCommandSocket(vmi.metadata.uid ?? '', 400);
      const socket = paths.portForwardSocket;
      return present(podPathText(socket)) ? socket : noUnixSocket(podPathText(socket));
    },
  };
}
