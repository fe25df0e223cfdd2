/**
 * The launchers of this node's VMIs, as the handler reaches them (kubevirt
 * pkg/virt-handler/launcher-clients): a VMI's launcher Pod is the newest of `status.activePods` on this node
 * that pods.ts trusts (the node's cached launcher Pod of that uid, in the VMI's namespace and controlled by
 * it); while there is none, the VMI has no launcher here (logged once per VMI and reason). Its command socket
 * sits in the Pod's `sockets` emptyDir under the kubelet's pods dir (lib/rpc launcherOnNode). One cmd client
 * per VMI, version negotiated on connect, kept until the VMI is forgotten.
 * - initialized: the launcher has answered once;
 * - unresponsive: after that, its socket is gone or refused, or Ping has failed for longer than
 *   unresponsiveAfterMs; the `launcher-unresponsive` marker is then made next to the socket (KubeVirt's
 *   MarkSocketUnresponsive), and the VMI stays unresponsive until it is forgotten.
 * The `sockets` emptyDir is the tenant's: the socket is dialled by an O_PATH|O_NOFOLLOW handle checked to be a
 * socket (lib/rpc newCmdClient), and the marker is created with O_CREAT|O_EXCL|O_NOFOLLOW below the emptyDir;
 * a symlink at either is refused with the reason logged.
 */
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Clock } from '../../kernel/clock.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { openBeneath, UnsafePathError, withHandle } from '../../kernel/safepath/index.ts';
import {
  launcherOnNode,
  newCmdClient,
  podPathText,
  type LauncherClient,
  type LauncherOnNode,
  type PodPath,
} from '../../rpc/index.ts';
import type { LauncherReach } from '../vmi/phase.ts';
import { trustedLauncherPod, type NodePods } from './pods.ts';

export const UNRESPONSIVE_MARKER = 'launcher-unresponsive';

export interface LauncherClientsOptions {
  readonly node: string;
  /** The kubelet's pods dir as this process sees it (`<root>/var/lib/kubelet/pods`). */
  readonly kubeletPodsDir: string;
  /** The node's launcher Pods, cached: an active Pod counts only when it is the VMI's own (pods.ts). */
  readonly pods: NodePods;
  readonly clock: Clock;
  readonly log: Logger;
  /** How long Ping may fail before the launcher counts as unresponsive (default 20 s). */
  readonly unresponsiveAfterMs?: number;
}

interface Entry {
  podUid: string;
  paths: LauncherOnNode;
  client?: LauncherClient;
  initialized: boolean;
  unresponsive: boolean;
  failingSince?: number;
  /** Why the socket was last refused (logged once per reason). */
  refused?: string;
  connecting?: Promise<LauncherClient | undefined>;
}

/**
 * Whether the VMI's launcher has answered before: this handler reached it, or the VMI got to Running on this node,
 * which only a launcher that started its domain here brings about. A handler started after such a launcher died (its
 * socket gone with the Pod's volumes, or left behind refusing) then sees it gone rather than not started yet. A
 * migration target's launcher is new even though its VMI runs (on the source node).
 */
function hadLauncher(vmi: VirtualMachineInstance, e: Entry, node: string): boolean {
  return e.initialized || (vmi.status?.phase === 'Running' && vmi.status.nodeName === node);
}

export class LauncherClients {
  private readonly entries = new Map<string, Entry>();
  /** Why each VMI without a launcher Pod here has none, as last logged. */
  private readonly untrusted = new Map<string, string>();

  constructor(private readonly o: LauncherClientsOptions) {}

  private entry(vmi: VirtualMachineInstance): Entry | undefined {
    const uid = vmi.metadata.uid ?? '';
    const podUid = this.launcherPod(vmi);
    const known = this.entries.get(uid);
    // A Pod trusted once stays the VMI's until another is: gone from the cache, its launcher may be stopping.
    if (known !== undefined && (podUid === undefined || known.podUid === podUid)) return known;
    if (podUid === undefined) return undefined;
    known?.client?.close();
    const fresh: Entry = {
      podUid,
      paths: launcherOnNode(this.o.kubeletPodsDir, podUid),
      initialized: false,
      unresponsive: false,
    };
    this.entries.set(uid, fresh);
    return fresh;
  }

  /** The uid of the VMI's own launcher Pod among its active Pods here; why not is logged once per reason. */
  private launcherPod(vmi: VirtualMachineInstance): string | undefined {
    const uid = vmi.metadata.uid ?? '';
    const choice = trustedLauncherPod(vmi, this.o.node, this.o.pods);
    if (choice.uid !== undefined || choice.refused.length === 0) {
      this.untrusted.delete(uid);
      return choice.uid;
    }
    const reason = choice.refused.join('; ');
    if (this.untrusted.get(uid) !== reason && !this.entries.has(uid)) {
      this.untrusted.set(uid, reason);
      const fields = { uid, namespace: vmi.metadata.namespace, name: vmi.metadata.name, reason };
      if (choice.cached) this.o.log.warning('launcher pod refused', fields);
      else this.o.log.info('launcher pod refused', fields);
    }
    return undefined;
  }

  /** Where this node reaches the VMI's launcher; undefined while it has no launcher Pod here. */
  paths(vmi: VirtualMachineInstance): LauncherOnNode | undefined {
    return this.entry(vmi)?.paths;
  }

  /** The VMI's launcher client, connected; undefined while its socket is not there or it does not answer. */
  client(vmi: VirtualMachineInstance): Promise<LauncherClient | undefined> {
    const e = this.entry(vmi);
    if (e === undefined || e.unresponsive) return Promise.resolve(undefined);
    if (e.client !== undefined) return Promise.resolve(e.client);
    // One dial at a time: the sync, the console and a metrics scrape may ask together.
    e.connecting ??= this.connect(vmi, e).finally(() => {
      delete e.connecting;
    });
    return e.connecting;
  }

  private async connect(vmi: VirtualMachineInstance, e: Entry): Promise<LauncherClient | undefined> {
    try {
      const client = await newCmdClient(e.paths.launcherSocket);
      if (this.entries.get(vmi.metadata.uid ?? '') !== e) {
        // Forgotten or replaced meanwhile: nobody would close it.
        client.close();
        return undefined;
      }
      e.client = client;
      e.initialized = true;
      delete e.refused;
      return client;
    } catch (err) {
      if (err instanceof UnsafePathError) await this.unusable(vmi, e, err);
      else {
        this.o.log
          .v(3)
          .info('launcher not answering yet', { uid: vmi.metadata.uid, reason: errorMessage(err) });
        // A launcher that ran and now refuses its socket (it died and left the file) fails like one not pinging.
        if (hadLauncher(vmi, e, this.o.node)) await this.failing(vmi, e);
      }
      return undefined;
    }
  }

  /** Nothing usable at the socket's path: missing, or refused (a symlink, not a socket). */
  private async unusable(vmi: VirtualMachineInstance, e: Entry, err: UnsafePathError): Promise<void> {
    const gone = err.reason === 'not-found';
    if (!gone && e.refused !== err.message)
      this.o.log.warning('launcher socket refused', {
        uid: vmi.metadata.uid,
        name: vmi.metadata.name,
        path: podPathText(e.paths.launcherSocket),
        reason: err.message,
      });
    if (!gone) e.refused = err.message;
    // A socket gone after the VMI ran is a launcher gone; something else in its place (a tenant's symlink) is
    // refused while it is there, and only a launcher this handler reached counts as lost for it.
    if (gone ? hadLauncher(vmi, e, this.o.node) : e.initialized)
      await this.markUnresponsive(
        vmi,
        e,
        gone ? 'its socket is gone' : `its socket was refused: ${err.message}`,
      );
  }

  /** Pings the launcher once; a failure that lasts unresponsiveAfterMs makes it unresponsive. */
  async probe(vmi: VirtualMachineInstance): Promise<LauncherReach> {
    const e = this.entry(vmi);
    if (e === undefined) return { initialized: false, unresponsive: false };
    const client = await this.client(vmi);
    if (client !== undefined) {
      const ok = await client.ping().then(
        (r) => r.success,
        () => false,
      );
      if (ok) delete e.failingSince;
      else await this.failing(vmi, e);
    }
    return {
      initialized: e.initialized,
      unresponsive: e.unresponsive,
      failing: e.failingSince !== undefined,
    };
  }

  reach(vmi: VirtualMachineInstance): LauncherReach {
    const e = this.entry(vmi);
    return { initialized: e?.initialized ?? false, unresponsive: e?.unresponsive ?? false };
  }

  private async failing(vmi: VirtualMachineInstance, e: Entry): Promise<void> {
    const now = this.o.clock.now();
    e.failingSince ??= now;
    if (now - e.failingSince >= (this.o.unresponsiveAfterMs ?? 20_000)) {
      await this.markUnresponsive(vmi, e, 'it did not answer Ping');
    }
  }

  private async markUnresponsive(vmi: VirtualMachineInstance, e: Entry, why: string): Promise<void> {
    e.unresponsive = true;
    e.client?.close();
    delete e.client;
    this.o.log.warning('launcher unresponsive', {
      uid: vmi.metadata.uid,
      name: vmi.metadata.name,
      reason: why,
    });
    await this.markSocket(vmi, e.paths.launcherSocket);
  }

  /**
   * Creates the empty marker next to the socket (KubeVirt's os.Create there), never through a symlink: an
   * existing regular file is kept as it is, anything else is refused and logged with the reason.
   */
  private async markSocket(vmi: VirtualMachineInstance, socket: PodPath): Promise<void> {
    const dir: PodPath = { root: socket.root, rel: socket.rel.slice(0, -1) };
    try {
      await withHandle(openBeneath(dir.root, dir.rel, ['directory']), async (d) => {
        await (await d.createFile(UNRESPONSIVE_MARKER, 0o644, { reuse: true })).close();
      });
    } catch (err) {
      this.o.log.warning('unresponsive marker refused', {
        uid: vmi.metadata.uid,
        name: vmi.metadata.name,
        path: podPathText({ root: dir.root, rel: [...dir.rel, UNRESPONSIVE_MARKER] }),
        reason: errorMessage(err),
      });
    }
  }

  /** Drops the client of a VMI that is gone or final. */
  forget(uid: string): void {
    this.entries.get(uid)?.client?.close();
    this.entries.delete(uid);
    this.untrusted.delete(uid);
  }

  closeAll(): void {
    for (const uid of [...this.entries.keys()]) this.forget(uid);
  }
}
