/**
 * The launcher side of the command channel: kubevirt.cmd.v1.Cmd plus kubevirt.cmd.info.CmdInfo on
 * one gRPC server (kubevirt pkg/virt-launcher/virtwrap/cmd-server/server.go). Handlers report
 * domain failures in-band (`{ success: false, message }`) and keep serving; RPCs without a handler
 * answer UNIMPLEMENTED.
 */
import { Server } from '@grpc/grpc-js';
import { CmdInfoService } from './gen/kubevirt/cmd/info/info.ts';
import { CmdService, type Response } from './gen/kubevirt/cmd/v1/cmd.ts';
import { serveUnary, type UnaryImpl } from './unary.ts';
import { CMD_VERSION } from './version.ts';

export type CmdHandlers = UnaryImpl<CmdService>;

export interface CmdServerOptions {
  /** Versions advertised through CmdInfo.Info; only tests change it. */
  readonly supportedVersions?: readonly number[];
}

/** A gRPC server with Cmd (impl's handlers) and CmdInfo; bind it with listenUnix. */
export function newCmdServer(impl: CmdHandlers, opts: CmdServerOptions = {}): Server {
  const versions = [...(opts.supportedVersions ?? [CMD_VERSION])];
  const server = new Server();
  server.addService(
    CmdInfoService,
    serveUnary(CmdInfoService, { info: () => Promise.resolve({ supportedCmdVersions: versions }) }),
  );
  server.addService(CmdService, serveUnary(CmdService, impl));
  return server;
}

/** In-band results for handlers. */
export const ok = (): Response => ({ success: true, message: '' });
export const failed = (message: string): Response => ({ success: false, message });
