/**
 * A subresource body decoded into its options (kubevirt rest/subresource.go decodeBody): an empty body (null or
 * undefined here) is no error and gives the zero options; a value Go would not decode is 400 "Can not unmarshal
 * Request body to struct, error: …". The caller parses the JSON text; a text that is no JSON is refused with
 * unmarshalFailed and the parser's words. Pure.
 */
import type {
  AddResourceClaimOptions,
  Disk,
  EvacuateCancelOptions,
  HotplugVolumeSource,
  MigrateOptions,
  PauseOptions,
  RemoveResourceClaimOptions,
  RemoveVolumeOptions,
  RestartOptions,
  StartOptions,
  StopOptions,
} from '../../../kubevirt/index.ts';
import { goDecode, type GoType } from './go-json.ts';
import {
  ADD_RESOURCE_CLAIM_OPTIONS,
  ADD_VOLUME_OPTIONS,
  EVACUATE_CANCEL_OPTIONS,
  MIGRATE_OPTIONS,
  PAUSE_OPTIONS,
  REMOVE_RESOURCE_CLAIM_OPTIONS,
  REMOVE_VOLUME_OPTIONS,
  RESTART_OPTIONS,
  START_OPTIONS,
  STOP_OPTIONS,
  UNPAUSE_OPTIONS,
} from './option-types.ts';
import { unmarshalFailed, type Refusal } from '../refusal.ts';

/**
 * What AddVolumeOptions decodes to before its checks: any field may be missing, the names in the disk and the
 * sources included.
 */
export interface DecodedAddVolumeOptions {
  name?: string;
  disk?: Omit<Disk, 'name'> & { name?: string };
  volumeSource?: { [K in keyof HotplugVolumeSource]?: Partial<NonNullable<HotplugVolumeSource[K]>> };
  dryRun?: string[];
}
type DecodedRemoveVolumeOptions = Partial<RemoveVolumeOptions>;

/** What AddResourceClaimOptions decodes to before its checks: any field may be missing, the names included. */
interface DecodedAddResourceClaimOptions {
  name?: string;
  hostDevice?: Partial<AddResourceClaimOptions['hostDevice']>;
  resourceClaim?: Partial<AddResourceClaimOptions['resourceClaim']>;
  dryRun?: string[];
}
type DecodedRemoveResourceClaimOptions = Partial<RemoveResourceClaimOptions>;

interface Decoded {
  start: StartOptions;
  stop: StopOptions;
  restart: RestartOptions;
  pause: PauseOptions;
  unpause: PauseOptions;
  migrate: MigrateOptions;
  evacuatecancel: EvacuateCancelOptions;
  addvolume: DecodedAddVolumeOptions;
  removevolume: DecodedRemoveVolumeOptions;
  addresourceclaim: DecodedAddResourceClaimOptions;
  removeresourceclaim: DecodedRemoveResourceClaimOptions;
}

const TYPES: { readonly [K in keyof Decoded]: Extract<GoType, { kind: 'struct' }> } = {
  start: START_OPTIONS,
  stop: STOP_OPTIONS,
  restart: RESTART_OPTIONS,
  pause: PAUSE_OPTIONS,
  unpause: UNPAUSE_OPTIONS,
  migrate: MIGRATE_OPTIONS,
  evacuatecancel: EVACUATE_CANCEL_OPTIONS,
  addvolume: ADD_VOLUME_OPTIONS,
  removevolume: REMOVE_VOLUME_OPTIONS,
  addresourceclaim: ADD_RESOURCE_CLAIM_OPTIONS,
  removeresourceclaim: REMOVE_RESOURCE_CLAIM_OPTIONS,
};

/**
 * The options of one subresource's body. Go checks types only: enum strings (a disk bus, a cache mode) come
 * through as sent, as in KubeVirt, for the admission webhook to judge.
 */
export function decodeOptions<K extends keyof Decoded>(sub: K, body: unknown): Decoded[K] | Refusal {
  const r = goDecode(body, TYPES[sub]);
  return r.ok ? (r.value as Decoded[K]) : unmarshalFailed(r.error);
}
