/**
 * The handler's REST server, for the role to wire: `startRestServer` with the PEM buffers read from
 * --client-ca-file / --tls-cert-file / --tls-key-file (and those files, watched for rotation), the client name of
 * --client-common-name (DEFAULT_CLIENT_COMMON_NAME), `nodeResolver` over the VMI informer's store and the
 * handler's LauncherClients, the process registry, and --console-server-port (DEFAULT_CONSOLE_SERVER_PORT).
 */
export {
  nodeResolver,
  type RestResolver,
  type LifecycleLauncher,
  type NodeResolverOptions,
} from './resolve.ts';
export {
  DEFAULT_CLIENT_COMMON_NAME,
  DEFAULT_CONSOLE_SERVER_PORT,
  PLAIN_STREAM_PROTOCOL,
  startRestServer,
  type RestServer,
  type RestServerOptions,
  type RestTls,
} from './server.ts';
export type { RestError } from './errors.ts';
