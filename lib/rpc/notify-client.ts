/**
 * The launcher side of the notification channel (kubevirt pkg/virt-launcher/notify-client): dial
 * the handler's socket, negotiate through NotifyInfo, send domain and Kubernetes events, each
 * within the short deadline. Retrying a failed send is the caller's policy.
 */
import { Client, credentials } from '@grpc/grpc-js';
import { realClock, type Clock } from '../kernel/clock.ts';
import { NotifyInfoService } from './gen/kubevirt/notify/info/info.ts';
import { NotifyService } from './gen/kubevirt/notify/v1/notify.ts';
import { DEFAULT_DEADLINES } from './deadlines.ts';
import { unixTarget } from './listen.ts';
import { jsonBytes, resultOf, type CmdResult } from './results.ts';
import { callUnary } from './unary.ts';
import { NOTIFY_VERSION, highestCompatibleVersion } from './version.ts';

/** watch.EventType spellings KubeVirt sends. */
type DomainEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'ERROR';

export interface NotifyClientOptions {
  /** Per-call deadline; KubeVirt's send timeout is 5 s. */
  readonly deadlineMs?: number;
  readonly clock?: Clock;
}

export interface DomainEventInput {
  readonly domain: object;
  readonly eventType: DomainEventType;
  /** metav1.Status to attach, if any. */
  readonly status?: object;
}

export class NotifyClient {
  readonly version: number;
  private readonly client: Client;
  private readonly deadlineMs: number;
  private readonly clock: Clock;

  constructor(client: Client, version: number, opts: NotifyClientOptions = {}) {
    this.client = client;
    this.version = version;
    this.deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINES.shortMs;
    this.clock = opts.clock ?? realClock;
  }

  async sendDomainEvent(event: DomainEventInput): Promise<CmdResult> {
    const request = {
      domainJSON: jsonBytes(event.domain),
      statusJSON: event.status === undefined ? Buffer.alloc(0) : jsonBytes(event.status),
      eventType: event.eventType,
    };
    const deadline = this.clock.now() + this.deadlineMs;
    return resultOf(await callUnary(this.client, NotifyService.handleDomainEvent, request, { deadline }));
  }

  /** A core/v1 Event for the handler to record against the VMI. */
  async sendK8sEvent(event: object): Promise<CmdResult> {
    const deadline = this.clock.now() + this.deadlineMs;
    const request = { eventJSON: jsonBytes(event) };
    return resultOf(await callUnary(this.client, NotifyService.handleK8SEvent, request, { deadline }));
  }

  close(): void {
    this.client.close();
  }
}

/**
 * Connects to the handler's Notify socket and negotiates the version; rejects with
 * RpcTransportError or RpcVersionError (closing the channel) like newCmdClient.
 */
export async function newNotifyClient(
  socketPath: string,
  opts: NotifyClientOptions = {},
): Promise<NotifyClient> {
  const client = new Client(unixTarget(socketPath), credentials.createInsecure());
  try {
    const deadline = (opts.clock ?? realClock).now() + (opts.deadlineMs ?? DEFAULT_DEADLINES.shortMs);
    const info = await callUnary(client, NotifyInfoService.info, {}, { deadline });
    const version = highestCompatibleVersion('kubevirt.notify.v1.Notify', info.supportedNotifyVersions, [
      NOTIFY_VERSION,
    ]);
    return new NotifyClient(client, version, opts);
  } catch (err) {
    client.close();
    throw err;
  }
}
