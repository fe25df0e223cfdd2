/**
 * The parts of resource.k8s.io/v1 ResourceClaim and ResourceSlice that KubeVirt reads to learn which device
 * the scheduler allocated for a VMI's claim request, and the attributes the launcher attaches it by.
 */
import type { KubeObject } from '../../kernel/kube/types.ts';

/** One allocated device: which request of the claim it serves, and the driver, pool and device it is. */
interface DeviceRequestAllocationResult {
  request: string;
  driver: string;
  pool: string;
  device: string;
}

export interface ResourceClaim extends KubeObject {
  status?: {
    allocation?: { devices?: { results?: DeviceRequestAllocationResult[] } };
    /** The consumers the claim is reserved for: Pods (resource `pods`), by name and uid. */
    reservedFor?: { resource: string; name: string; uid?: string }[];
  };
}

/** A typed attribute value; exactly one field is set. */
export interface DeviceAttribute {
  string?: string;
  int?: number;
  bool?: boolean;
  version?: string;
}

export interface ResourceSlice extends KubeObject {
  spec: {
    driver: string;
    pool: { name: string };
    nodeName?: string;
    devices?: { name: string; attributes?: Record<string, DeviceAttribute> }[];
  };
}
