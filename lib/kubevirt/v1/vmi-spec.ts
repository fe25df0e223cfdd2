/** VirtualMachineInstance spec: the domain plus scheduling, volumes, networks and lifecycle settings. */
import { s, type Infer } from '../schema/dsl.ts';
import { opaque, toleration } from './common.ts';
import { domainSpec } from './domain.ts';
import { network } from './network.ts';
import { volume } from './volume.ts';

export const evictionStrategy = s.enum(['None', 'LiveMigrate', 'LiveMigrateIfPossible', 'External']);
export type EvictionStrategy = Infer<typeof evictionStrategy>;

const startStrategy = s.enum(['Paused']);

/** core/v1 PodResourceClaim; hotpluggable is a Deckhouse fork field. */
export const podResourceClaim = s.object({
  name: s.string().required(),
  resourceClaimName: s.string(),
  resourceClaimTemplateName: s.string(),
  hotpluggable: s.bool(),
});
export type PodResourceClaim = Infer<typeof podResourceClaim>;

export const vmiSpec = s.object({
  domain: domainSpec.required(),
  volumes: s.array(volume),
  networks: s.array(network),
  nodeSelector: s.map(s.string()),
  /** core/v1 Affinity, kept as sent. */
  affinity: s.preserve(),
  tolerations: s.array(toleration),
  topologySpreadConstraints: s.array(opaque),
  schedulerName: s.string(),
  priorityClassName: s.string(),
  evictionStrategy,
  startStrategy,
  /** Seconds between the shutdown request and the forced stop; 30 when absent. */
  terminationGracePeriodSeconds: s.int('int64'),
  livenessProbe: opaque,
  readinessProbe: opaque,
  hostname: s.string(),
  subdomain: s.string(),
  dnsPolicy: s.string(),
  dnsConfig: opaque,
  accessCredentials: s.array(opaque, { listType: 'atomic' }),
  architecture: s.string(),
  resourceClaims: s.array(podResourceClaim),
});
export type VirtualMachineInstanceSpec = Infer<typeof vmiSpec>;
