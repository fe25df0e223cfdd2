/** The kube client: configuration, the HTTP KubeClient, GVR constants and paths, shared CLI flags. */
export type * from './types.ts';
export {
  DEFAULT_BURST,
  DEFAULT_QPS,
  DEFAULT_USER_AGENT,
  loadRestConfig,
  type ConfigWarning,
  type LoadRestConfigOptions,
  type RestConfig,
} from './config.ts';
export { HttpKubeClient, PATCH_CONTENT_TYPES, type HttpKubeClientOptions } from './client.ts';
export { listAll, type ListAllOptions, type ListAllResult } from './list-all.ts';
export {
  CONFIG_MAPS,
  CUSTOM_RESOURCE_DEFINITIONS,
  EVENTS,
  LEASES,
  NAMESPACES,
  NODES,
  PERSISTENT_VOLUME_CLAIMS,
  PERSISTENT_VOLUMES,
  PODS,
  SECRETS,
  SERVICES,
  groupVersionPath,
  gvkOf,
  gvrPath,
  type PathParts,
} from './resources.ts';
export { addKubeFlags, kubeFlagsToConfigOptions, type KubeFlagValues } from './flags.ts';
export { FileTokenSource, checkHeaderToken, staticTokenSource, type TokenSource } from './token-source.ts';
export {
  checkCertificates,
  checkKeyPair,
  checkPrivateKey,
  pemFlag,
  pemPairFlags,
  type PemCheck,
} from './pem-check.ts';
export { errnoText } from './load-errors.ts';
export { asWatchEvent, decodeWatchEvent } from './watch-decoder.ts';
