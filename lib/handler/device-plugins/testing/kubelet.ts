/**
 * The kubelet's side of the device plugin API for tests: a Registration server on `<dir>/kubelet.sock` that
 * records every Register, and a client of one plugin's socket (ListAndWatch as a queue of lists, Allocate,
 * GetDevicePluginOptions), as the kubelet dials it back after a Register.
 */
import { Client, credentials, Metadata, Server, type ClientReadableStream } from '@grpc/grpc-js';
import path from 'node:path';
import { KUBELET_SOCKET } from '../kubelet-api.ts';
import {
  DevicePluginService,
  RegistrationService,
  type AllocateRequest,
  type AllocateResponse,
  type DevicePluginOptions,
  type ListAndWatchResponse,
  type RegisterRequest,
} from '../gen/v1beta1/api.ts';
import { listenUnix, shutdownServer, unixTarget } from '../../../rpc/listen.ts';
import { callUnary, serveUnary } from '../../../rpc/unary.ts';

export interface FakeKubelet {
  readonly socket: string;
  /** Every Register received, in order. */
  readonly registrations: RegisterRequest[];
  /** Stops serving; removes kubelet.sock when `removeSocket` (default true). */
  stop(removeSocket?: boolean): Promise<void>;
}

/** Serves Registration on `<dir>/kubelet.sock`. */
export async function startFakeKubelet(dir: string): Promise<FakeKubelet> {
  const socket = path.join(dir, KUBELET_SOCKET);
  const registrations: RegisterRequest[] = [];
  const server = new Server();
  server.addService(
    RegistrationService,
    serveUnary(RegistrationService, {
      register: (req) => {
        registrations.push(req);
        return Promise.resolve({});
      },
    }),
  );
  await listenUnix(server, socket);
  return {
    socket,
    registrations,
    stop: async (): Promise<void> => {
      await shutdownServer(server, 0);
    },
  };
}

const deadline = (): { deadline: number } => ({ deadline: Date.now() + 5_000 });

/** One ListAndWatch stream: next() resolves with the next list the plugin sends. */
export class DeviceListStream {
  private readonly queue: ListAndWatchResponse[] = [];
  private waiters: ((r: ListAndWatchResponse | undefined) => void)[] = [];
  private ended = false;

  constructor(private readonly call: ClientReadableStream<ListAndWatchResponse>) {
    call.on('data', (r: ListAndWatchResponse) => {
      const w = this.waiters.shift();
      if (w === undefined) this.queue.push(r);
      else w(r);
    });
    const end = (): void => {
      this.ended = true;
      for (const w of this.waiters.splice(0)) w(undefined);
    };
    call.on('end', end);
    call.on('error', end);
  }

  /** The next list, or undefined when the stream ended; rejects after timeoutMs. */
  next(timeoutMs = 5_000): Promise<ListAndWatchResponse | undefined> {
    const have = this.queue.shift();
    if (have !== undefined) return Promise.resolve(have);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== settle);
        reject(new Error(`no device list within ${timeoutMs} ms`));
      }, timeoutMs);
      const settle = (r: ListAndWatchResponse | undefined): void => {
        clearTimeout(t);
        resolve(r);
      };
      this.waiters.push(settle);
    });
  }

  cancel(): void {
    this.call.cancel();
  }
}

/** A client of one plugin's socket. */
export class DevicePluginTestClient {
  private readonly client: Client;

  constructor(socket: string) {
    this.client = new Client(unixTarget(socket), credentials.createInsecure());
  }

  options(): Promise<DevicePluginOptions> {
    return callUnary(this.client, DevicePluginService.getDevicePluginOptions, {}, deadline());
  }

  allocate(req: AllocateRequest): Promise<AllocateResponse> {
    return callUnary(this.client, DevicePluginService.allocate, req, deadline());
  }

  listAndWatch(): DeviceListStream {
    const def = DevicePluginService.listAndWatch;
    const call = this.client.makeServerStreamRequest(
      def.path,
      (v: object) => def.requestSerialize(v),
      (b: Buffer) => def.responseDeserialize(b),
      {},
      new Metadata(),
      {},
    );
    return new DeviceListStream(call);
  }

  close(): void {
    this.client.close();
  }
}
