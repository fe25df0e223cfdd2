/**
 * The kubelet's device plugin API v1beta1 (k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1, constants.go):
 * the wire constants, a plugin's gRPC server (the unary RPCs through serveUnary, ListAndWatch as a stream the
 * plugin feeds until it stops or the kubelet goes away) and the Register call to the kubelet's socket.
 * The kubelet's side, for tests, is in ./testing/kubelet.ts.
 */
import { Client, credentials, Server, type handleServerStreamingCall } from '@grpc/grpc-js';
import { realClock, type Clock } from '../../kernel/clock.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import {
  DevicePluginService,
  RegistrationService,
  type Empty,
  type ListAndWatchResponse,
  type RegisterRequest,
} from './gen/v1beta1/api.ts';
import { unixTarget } from '../../rpc/listen.ts';
import { callUnary, serveUnary, serverStatusOf, type UnaryImpl } from '../../rpc/unary.ts';

export type {
  AllocateRequest,
  AllocateResponse,
  ContainerAllocateResponse,
  Device,
  ListAndWatchResponse,
  RegisterRequest,
} from './gen/v1beta1/api.ts';

/** The API version a plugin registers with. */
export const DEVICE_PLUGIN_VERSION = 'v1beta1';
/** The kubelet's device-plugins dir relative to the root ('/' on a node; the kubelet hard-codes it). */
export const DEVICE_PLUGINS_DIR = 'var/lib/kubelet/device-plugins';
/** The kubelet's Registration socket inside that dir. */
export const KUBELET_SOCKET = 'kubelet.sock';
export const HEALTHY = 'Healthy';
export const UNHEALTHY = 'Unhealthy';
export type DeviceHealth = typeof HEALTHY | typeof UNHEALTHY;

type UnaryPart = Omit<DevicePluginService, 'listAndWatch'>;

export type DevicePluginHandlers = UnaryImpl<UnaryPart> & {
  /**
   * One ListAndWatch stream: send() device lists until `signal` aborts (the kubelet cancelled) or the
   * returned promise settles (resolve ends the stream with OK, a throw with the error's status).
   */
  readonly listAndWatch: (send: (r: ListAndWatchResponse) => void, signal: AbortSignal) => Promise<void>;
};

function serveListAndWatch(
  fn: DevicePluginHandlers['listAndWatch'],
): handleServerStreamingCall<Empty, ListAndWatchResponse> {
  return (call) => {
    const abort = new AbortController();
    const gone = (): void => {
      abort.abort(new KvError('KV_ERR_ABORTED', 'ListAndWatch ended by the client'));
    };
    call.on('cancelled', gone);
    call.on('error', gone);
    const send = (r: ListAndWatchResponse): void => {
      if (!call.cancelled && !call.writableEnded) call.write(r);
    };
    const finish = (err?: unknown): void => {
      if (call.cancelled || call.writableEnded) return;
      if (err === undefined) call.end();
      else call.emit('error', serverStatusOf(err));
      return;
    };
    void new Promise((resolve) => {
      resolve(fn(send, abort.signal));
    }).then(
      () => {
        finish();
      },
      (err: unknown) => {
        finish(err ?? new Error('ListAndWatch failed'));
      },
    );
  };
}

/** A gRPC server with the DevicePlugin service; RPCs without a handler answer UNIMPLEMENTED. */
export function newDevicePluginServer(handlers: DevicePluginHandlers): Server {
  const { listAndWatch, ...unary } = handlers;
  const unaryDefs: UnaryPart = {
    getDevicePluginOptions: DevicePluginService.getDevicePluginOptions,
    getPreferredAllocation: DevicePluginService.getPreferredAllocation,
    allocate: DevicePluginService.allocate,
    preStartContainer: DevicePluginService.preStartContainer,
  };
  const server = new Server();
  server.addService(DevicePluginService, {
    ...serveUnary(unaryDefs, unary),
    listAndWatch: serveListAndWatch(listAndWatch),
  });
  return server;
}

export interface RegisterOptions {
  /** Default 5 s (KubeVirt's connectionTimeout). */
  readonly deadlineMs?: number;
  readonly clock?: Clock;
}

/** Registration.Register on the kubelet's socket; rejects with RpcTransportError when it fails. */
export async function registerWithKubelet(
  kubeletSocket: string,
  request: RegisterRequest,
  opts: RegisterOptions = {},
): Promise<void> {
  const client = new Client(unixTarget(kubeletSocket), credentials.createInsecure());
  try {
    const deadline = (opts.clock ?? realClock).now() + (opts.deadlineMs ?? 5_000);
    await callUnary(client, RegistrationService.register, request, { deadline });
  } finally {
    client.close();
  }
}
