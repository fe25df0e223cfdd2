/**
 * The handler's Notify endpoints (kubevirt pkg/virt-handler/notify-server and the domain-notify pipe it injects
 * into each launcher Pod): one small Notify gRPC server per launcher Pod, bound where that launcher dials Notify,
 * its /var/run/kubevirt/domain-notify.sock in the Pod's `public` emptyDir. Each server knows its Pod and VMI and
 * takes only what accept.ts allows: a domain event of its own VMI enqueues that VMI when it says something new
 * (domains.ts; level-triggered: the sync reads the domain itself), a Kubernetes event about it is recorded on it;
 * anything else is answered `success=false` with the reason and dropped.
 *
 * The socket is made with lib/kernel/safepath listenBeneath: the emptyDir is the kubelet's, everything in it the
 * tenant's. A stale socket there is replaced, a symlink or any other file is refused (logged with the reason,
 * nothing touched); the server binds through `/proc/self/fd/N/domain-notify.sock` of the emptyDir's handle, and
 * the socket is made 0666 (the launcher runs as another user, 107) through an O_PATH|O_NOFOLLOW handle of what
 * was bound, checked to be a socket, never by path. The emptyDir's handle stays open while the server listens:
 * Node unlinks the path it bound when it closes.
 */
import { ServerCredentials, type Server } from '@grpc/grpc-js';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { errorMessage, KvError } from '../../kernel/errors/errors.ts';
import type { KubeObject } from '../../kernel/kube/types.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { listenBeneath, type ListeningBeneath } from '../../kernel/safepath/index.ts';
import {
  decodeDomainEvent,
  failed,
  newNotifyServer,
  ok,
  podPathText,
  shutdownServer,
  unixTarget,
  type LauncherOnNode,
  type NotifyHandlers,
} from '../../rpc/index.ts';
import type { NodePods } from '../launchers/pods.ts';
import { domainUid, involvedUid, notifyVerdict, type NotifyEndpoint } from './accept.ts';

/** A core/v1 Event a launcher reports about its VMI. */
export type LauncherEvent = KubeObject & {
  involvedObject?: { uid?: string };
  type?: string;
  reason?: string;
  message?: string;
};

interface NotifyEvents {
  /** A domain event of this node's VMI `vmi` (the cached object), from its own launcher Pod. */
  domainEvent(vmi: VirtualMachineInstance, eventType: string, domain: unknown): void;
  /** A core/v1 Event the VMI's own launcher reported about it. */
  k8sEvent(vmi: VirtualMachineInstance, event: LauncherEvent): void;
}

export interface NotifyServer {
  /**
   * Serves Notify in the VMI's launcher Pod (once per Pod). A socket that cannot be made there is logged with
   * the reason, not thrown: the sync does not depend on Notify, and the next call tries again.
   */
  listenFor(vmi: VirtualMachineInstance, launcher: LauncherOnNode): Promise<void>;
  /** Stops serving in that Pod. */
  stopFor(launcher: LauncherOnNode): Promise<void>;
  close(): Promise<void>;
}

export interface NotifyServerOptions {
  readonly node: string;
  /** The handler's VMI cache, keyed `namespace/name`. */
  readonly vmis: { get(key: string): VirtualMachineInstance | undefined };
  /** The node's launcher Pods, cached: an endpoint speaks for its VMI only while its Pod is the VMI's own. */
  readonly pods: NodePods;
  readonly events: NotifyEvents;
  readonly log: Logger;
}

const NOTIFY_SOCKET_MODE = 0o666;

function bindGrpc(server: Server, at: string): Promise<() => Promise<void>> {
  return new Promise((resolve, reject) => {
    server.bindAsync(unixTarget(at), ServerCredentials.createInsecure(), (err) => {
      if (err !== null) {
        reject(new KvError('KV_ERR_TRANSPORT', `cannot listen: ${err.message}`, { cause: err }));
        return;
      }
      resolve(() => shutdownServer(server, 1000));
      return;
    });
  });
}

class Endpoints implements NotifyServer {
  private readonly listening = new Map<string, Promise<ListeningBeneath | undefined>>();
  /** The last refusal logged per Pod: a repeated one is not logged again. */
  private readonly refused = new Map<string, string>();
  /** Pods whose endpoint has dropped a message: later drops are logged at v(2) only. */
  private readonly dropping = new Set<string>();

  constructor(private readonly o: NotifyServerOptions) {}

  listenFor(vmi: VirtualMachineInstance, launcher: LauncherOnNode): Promise<void> {
    const podUid = launcher.podUid;
    let bound = this.listening.get(podUid);
    if (bound === undefined) {
      bound = this.bind(vmi, launcher);
      this.listening.set(podUid, bound);
    }
    return bound.then((b) => {
      // Refused: the next call tries again.
      if (b === undefined && this.listening.get(podUid) === bound) this.listening.delete(podUid);
    });
  }

  private async bind(
    vmi: VirtualMachineInstance,
    launcher: LauncherOnNode,
  ): Promise<ListeningBeneath | undefined> {
    const endpoint: NotifyEndpoint = {
      podUid: launcher.podUid,
      namespace: vmi.metadata.namespace ?? '',
      name: vmi.metadata.name ?? '',
      vmiUid: vmi.metadata.uid ?? '',
    };
    const server = newNotifyServer(this.handlers(endpoint));
    const at = launcher.notifySocket;
    try {
      const bound = await listenBeneath(at.root, at.rel, {
        mode: NOTIFY_SOCKET_MODE,
        listen: (path) => bindGrpc(server, path),
      });
      this.refused.delete(endpoint.podUid);
      this.o.log
        .v(2)
        .info('notify listening in the launcher Pod', { ...fieldsOf(endpoint), path: bound.path });
      return bound;
    } catch (err) {
      server.forceShutdown();
      const reason = errorMessage(err);
      if (this.refused.get(endpoint.podUid) !== reason)
        this.o.log.warning('notify socket refused', { ...fieldsOf(endpoint), path: podPathText(at), reason });
      this.refused.set(endpoint.podUid, reason);
      return undefined;
    }
  }

  private handlers(endpoint: NotifyEndpoint): NotifyHandlers {
    const key = `${endpoint.namespace}/${endpoint.name}`;
    const verdict = (uid: string): ReturnType<typeof notifyVerdict> =>
      notifyVerdict({
        endpoint,
        node: this.o.node,
        cached: this.o.vmis.get(key),
        pod: this.o.pods.byUid(endpoint.podUid),
        uid,
      });
    const handlers: NotifyHandlers = {
      handleDomainEvent: (req) => {
        const ev = decodeDomainEvent(req);
        const v = verdict(domainUid(ev.domain));
        if (!v.accept) return Promise.resolve(this.drop(endpoint, 'domain event', v.reason));
        this.o.events.domainEvent(v.vmi, ev.eventType, ev.domain);
        return Promise.resolve(ok());
      },
      handleK8SEvent: (req) => {
        let event: LauncherEvent;
        try {
          event = JSON.parse(req.eventJSON.toString('utf8')) as LauncherEvent;
        } catch {
          return Promise.resolve(this.drop(endpoint, 'Kubernetes event', 'it is not valid JSON'));
        }
        const v = verdict(involvedUid(event));
        if (!v.accept) return Promise.resolve(this.drop(endpoint, 'Kubernetes event', v.reason));
        this.o.events.k8sEvent(v.vmi, event);
        return Promise.resolve(ok());
      },
    };
    return handlers;
  }

  private drop(endpoint: NotifyEndpoint, what: string, reason: string): ReturnType<typeof failed> {
    const first = !this.dropping.has(endpoint.podUid);
    this.dropping.add(endpoint.podUid);
    (first ? this.o.log : this.o.log.v(2)).warning('notify message dropped', {
      ...fieldsOf(endpoint),
      kind: what,
      reason,
    });
    return failed(`${what} dropped: ${reason}`);
  }

  async stopFor(launcher: LauncherOnNode): Promise<void> {
    const bound = this.listening.get(launcher.podUid);
    this.listening.delete(launcher.podUid);
    this.refused.delete(launcher.podUid);
    this.dropping.delete(launcher.podUid);
    await this.closeOne(launcher.podUid, bound);
  }

  private async closeOne(
    pod: string,
    bound: Promise<ListeningBeneath | undefined> | undefined,
  ): Promise<void> {
    try {
      await (await bound)?.close();
    } catch (err) {
      this.o.log.warning('notify endpoint close failed', { pod, reason: errorMessage(err) });
    }
  }

  async close(): Promise<void> {
    const all = [...this.listening];
    this.listening.clear();
    for (const [pod, bound] of all) await this.closeOne(pod, bound);
  }
}

function fieldsOf(e: NotifyEndpoint): Record<string, string> {
  return { namespace: e.namespace, name: e.name, uid: e.vmiUid, pod: e.podUid };
}

export function startNotifyServer(o: NotifyServerOptions): NotifyServer {
  return new Endpoints(o);
}
