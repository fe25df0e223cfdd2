/** Configuration ISOs of a domain: the pure planners and the xorrisofs writer. */
export {
  CLOUD_INIT_INLINE_MAX_BYTES,
  CLUSTER_INSTANCETYPE_ANNOTATION,
  INSTANCETYPE_ANNOTATION,
  cloudInitImage,
  decodeBase64,
  guestHostname,
  type CloudInitOptions,
} from './cloud-init.ts';
export {
  DEFAULT_CONFIG_LABEL,
  SERVICE_ACCOUNT_DIR,
  configVolumeImages,
  type ConfigVolumeOptions,
} from './config-volumes.ts';
export { ConfigDiskError, isAtomicWriterEntry, type IsoFile, type IsoImage, type SourceFs } from './image.ts';
export { nodeSourceFs, writeIso, xorrisofsArgs, XORRISO, type XorrisofsArgs } from './iso.ts';
export { configDiskImages, diskFiles, type ConfigDiskInput } from './plan.ts';
export { sshPublicKeys, type SshKeyOptions } from './ssh-keys.ts';
