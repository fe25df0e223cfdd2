/**
 * How the console server finds what a request names (kubevirt pkg/virt-handler/rest: getVMI over the handler's
 * VMI store, cmdclient.FindSocket, the isolation detector's socket paths). The server sees only the
 * ConsoleResolver; nodeResolver is the handler's: the VMI informer cache of this node, its LauncherClients
 * (shared with the VMI controller, so the server never closes a client), and the VMI's serial and VNC sockets in
 * the launcher Pod's `private` emptyDir under the kubelet's pods dir (lib/rpc launcherOnNode).
 */
import { existsSync } from 'node:fs';
import type { VirtualMachineInstance } from '../../api/index.ts';
import type { LauncherClient } from '../../rpc/index.ts';
import type { LauncherClients } from '../launchers/clients.ts';
import { noCommandSocket, noUnixSocket, type ConsoleError } from './errors.ts';
import type { StreamRoute } from './routes.ts';

/** The launcher calls the lifecycle routes make. */
export type LifecycleLauncher = Pick<
  LauncherClient,
  'vmiCommand' | 'freezeVirtualMachine' | 'getGuestInfo' | 'getUsers' | 'getFilesystems'
>;

export interface ConsoleResolver {
  /** The VMI the handler knows by namespace and name; undefined when it is not this node's. */
  vmi(namespace: string, name: string): VirtualMachineInstance | undefined;
  /** The VMI's launcher, connected, or why there is none (KubeVirt answers 500). */
  launcher(vmi: VirtualMachineInstance): Promise<LifecycleLauncher | ConsoleError>;
  /** The path of the VMI's serial (`console`) or VNC socket, or why there is none (KubeVirt answers 400). */
  socket(vmi: VirtualMachineInstance, kind: StreamRoute): string | ConsoleError;
}

export interface NodeResolverOptions {
  /** The handler's VMI cache (SharedInformer.store), keyed `namespace/name`. */
  readonly vmis: { get(key: string): VirtualMachineInstance | undefined };
  readonly launchers: Pick<LauncherClients, 'client' | 'paths'>;
}

export function nodeResolver(o: NodeResolverOptions): ConsoleResolver {
  return {
    vmi: (namespace, name): VirtualMachineInstance | undefined => o.vmis.get(`${namespace}/${name}`),
    launcher: async (vmi): Promise<LifecycleLauncher | ConsoleError> => {
      const client = await o.launchers.client(vmi);
      return client ?? noCommandSocket(vmi.metadata.uid ?? '', 500);
    },
    socket: (vmi, kind): string | ConsoleError => {
      const uid = vmi.metadata.uid ?? '';
      const paths = o.launchers.paths(vmi);
      if (paths === undefined || uid === '') return noCommandSocket(uid, 400);
      const socket = kind === 'console' ? paths.serialSocket(uid) : paths.vncSocket(uid);
      return existsSync(socket) ? socket : noUnixSocket(socket);
    },
  };
}
