/** The kube client: configuration, the HTTP KubeClient, GVR constants and paths, shared CLI flags. */
export type * from './types.ts';
export { DEFAULT_USER_AGENT, loadRestConfig, type RestConfig } from './config.ts';
export { HttpKubeClient } from './client.ts';
export {
  CONFIG_MAPS,
  CUSTOM_RESOURCE_DEFINITIONS,
  EVENTS,
  NAMESPACES,
  NODES,
  PERSISTENT_VOLUME_CLAIMS,
  PERSISTENT_VOLUMES,
  PODS,
  gvrPath,
} from './resources.ts';
export { addKubeFlags, kubeFlagsToConfigOptions, type KubeFlagValues } from './flags.ts';
export { FileTokenSource, staticTokenSource, type TokenSource } from './token-source.ts';
export { checkCertificates, checkKeyPair, checkPrivateKey, pemFlag, pemPairFlags } from './pem-check.ts';
