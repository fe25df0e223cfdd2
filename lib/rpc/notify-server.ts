/**
 * The handler side of the notification channel: kubevirt.notify.v1.Notify plus
 * kubevirt.notify.info.NotifyInfo on one gRPC server (kubevirt pkg/virt-handler/notify-server).
 */
import { Server } from '@grpc/grpc-js';
import { NotifyInfoService } from './gen/kubevirt/notify/info/info.ts';
import { NotifyService, type DomainEventRequest } from './gen/kubevirt/notify/v1/notify.ts';
import { parseJsonField } from './results.ts';
import { serveUnary, type UnaryImpl } from './unary.ts';
import { NOTIFY_VERSION } from './version.ts';

export type NotifyHandlers = UnaryImpl<NotifyService>;

export interface NotifyServerOptions {
  /** Versions advertised through NotifyInfo.Info; only tests change it. */
  readonly supportedVersions?: readonly number[];
}

/** A gRPC server with Notify (impl's handlers) and NotifyInfo; bind it with listenUnix. */
export function newNotifyServer(impl: NotifyHandlers, opts: NotifyServerOptions = {}): Server {
  const versions = [...(opts.supportedVersions ?? [NOTIFY_VERSION])];
  const server = new Server();
  server.addService(
    NotifyInfoService,
    serveUnary(NotifyInfoService, { info: () => Promise.resolve({ supportedNotifyVersions: versions }) }),
  );
  server.addService(NotifyService, serveUnary(NotifyService, impl));
  return server;
}

/** A domain event with its JSON decoded. */
export interface DomainEvent {
  /** KubeVirt api.Domain JSON; undefined when the launcher sent none. */
  readonly domain: unknown;
  /** metav1.Status JSON that came with the event, if any. */
  readonly status: unknown;
  readonly eventType: string;
}

/** Decodes HandleDomainEvent's payload; throws KV_ERR_DECODE on malformed JSON. */
export function decodeDomainEvent(request: DomainEventRequest): DomainEvent {
  return {
    domain: parseJsonField('HandleDomainEvent domainJSON', request.domainJSON),
    status: parseJsonField('HandleDomainEvent statusJSON', request.statusJSON),
    eventType: request.eventType,
  };
}
