/**
 * The handler's Notify server (kubevirt pkg/virt-handler/notify-server) on `<root>/var/run/kubevirt/
 * domain-notify.sock`, and one pipe per launcher Pod: the launcher dials Notify at its own
 * /var/run/kubevirt/domain-notify.sock, inside the Pod's `public` emptyDir; the handler listens there and joins
 * each connection to its own socket (KubeVirt's domain-notify-pipe). A domain event only enqueues its VMI
 * (level-triggered: the sync reads the domain itself); a Kubernetes event from a launcher is recorded on its VMI.
 */
import { chmod, rm } from 'node:fs/promises';
import { connect, createServer, type Server as NetServer, type Socket } from 'node:net';
import {
  decodeDomainEvent,
  dialPath,
  listenUnix,
  newNotifyServer,
  ok,
  shutdownServer,
} from '../../rpc/index.ts';
import type { Logger } from '../../kernel/log/log.ts';
import type { KubeObject } from '../../kernel/kube/types.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';

export interface NotifyEvents {
  /** A domain event for the VMI with this uid (from the domain's ObjectMeta), with the domain as sent. */
  domainEvent(vmiUid: string, eventType: string, domain: unknown): void;
  /** A core/v1 Event a launcher reported about its VMI. */
  k8sEvent(
    event: KubeObject & {
      involvedObject?: { uid?: string };
      type?: string;
      reason?: string;
      message?: string;
    },
  ): void;
}

export interface NotifyServer {
  readonly socketPath: string;
  /** Listens at a launcher Pod's notify path for it (idempotent per path). */
  pipeFor(podNotifySocket: string): Promise<void>;
  /** Stops listening at that path. */
  unpipe(podNotifySocket: string): Promise<void>;
  close(): Promise<void>;
}

function uidOf(domain: unknown): string {
  const meta = (domain as { ObjectMeta?: { uid?: unknown } } | undefined)?.ObjectMeta;
  return typeof meta?.uid === 'string' ? meta.uid : '';
}

function join(a: Socket, b: Socket): void {
  const end = (): void => {
    a.destroy();
    b.destroy();
  };
  a.on('error', end).on('close', end);
  b.on('error', end).on('close', end);
  a.pipe(b);
  b.pipe(a);
}

export async function startNotifyServer(o: {
  socketPath: string;
  events: NotifyEvents;
  log: Logger;
}): Promise<NotifyServer> {
  const server = newNotifyServer({
    handleDomainEvent: (req) => {
      const ev = decodeDomainEvent(req);
      const uid = uidOf(ev.domain);
      if (uid !== '') o.events.domainEvent(uid, ev.eventType, ev.domain);
      return Promise.resolve(ok());
    },
    handleK8SEvent: (req) => {
      try {
        o.events.k8sEvent(JSON.parse(req.eventJSON.toString('utf8')) as KubeObject);
      } catch (err) {
        o.log.warning('undecodable event from a launcher', { reason: errorMessage(err) });
      }
      return Promise.resolve(ok());
    },
  });
  await listenUnix(server, o.socketPath);
  const pipes = new Map<string, NetServer>();
  const pipeFor = async (path: string): Promise<void> => {
    if (pipes.has(path)) return;
    const bind = dialPath(path);
    await rm(bind.path, { force: true });
    const pipe = createServer((client) => {
      join(client, connect(o.socketPath));
    });
    pipe.on('error', (err) => {
      o.log.warning('notify pipe failed', { path, reason: errorMessage(err) });
    });
    await new Promise<void>((resolve, reject) => {
      pipe.once('error', reject);
      pipe.listen(bind.path, () => {
        pipe.off('error', reject);
        resolve();
      });
    });
    // The launcher runs as another user (107): it must be able to connect.
    await chmod(bind.path, 0o666);
    bind.release();
    pipes.set(path, pipe);
  };
  const unpipe = async (path: string): Promise<void> => {
    const pipe = pipes.get(path);
    if (pipe === undefined) return;
    pipes.delete(path);
    await new Promise<void>((resolve) => {
      pipe.close(() => {
        resolve();
      });
    });
  };
  return {
    socketPath: o.socketPath,
    pipeFor,
    unpipe,
    close: async (): Promise<void> => {
      for (const path of [...pipes.keys()]) await unpipe(path);
      await shutdownServer(server, 1000);
    },
  };
}
