/** The parts of a core/v1 PersistentVolume the handler reads to find a claim's data on its node. */
import type { KubeObject } from '../../kernel/kube/types.ts';

export interface PersistentVolume extends KubeObject {
  spec?: {
    volumeMode?: string;
    hostPath?: { path?: string };
    local?: { path?: string };
    csi?: { driver?: string; volumeHandle?: string };
    /** The claim this volume is bound to (set by the binder; the claim's own uid included). */
    claimRef?: { namespace?: string; name?: string; uid?: string };
  };
  status?: { phase?: string };
}
