/**
 * The handler's console server, for the role to wire: `startConsoleServer` with the PEM buffers read from
 * --client-ca-file / --tls-cert-file / --tls-key-file (and those files, watched for rotation), the client name of
 * --client-common-name (DEFAULT_CLIENT_COMMON_NAME), `nodeResolver` over the VMI informer's store and the
 * handler's LauncherClients, the process registry, and --console-server-port (DEFAULT_CONSOLE_SERVER_PORT).
 */
export {
  nodeResolver,
  type ConsoleResolver,
  type LifecycleLauncher,
  type NodeResolverOptions,
} from './resolve.ts';
export {
  DEFAULT_CLIENT_COMMON_NAME,
  DEFAULT_CONSOLE_SERVER_PORT,
  PLAIN_STREAM_PROTOCOL,
  startConsoleServer,
  type ConsoleServer,
  type ConsoleServerOptions,
  type ConsoleTls,
} from './server.ts';
export { DEFAULT_PING_INTERVAL_MS } from './stream.ts';
export type { ConsoleError } from './errors.ts';
