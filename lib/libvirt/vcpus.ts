/**
 * The vCPU count of a domain: read it (live, persistent or maximum) and change it on a running domain, as
 * KubeVirt's UpdateVCPUs does with virDomainSetVcpusFlags(count, LIVE|CONFIG). libvirt plugs or unplugs the
 * hotpluggable vCPUs of the domain's `<vcpus>` list in order of id; a count above the domain's maximum, or one
 * that would unplug a vCPU marked hotpluggable='no', is refused with libvirt's error.
 */
import type { CallOptions, LibvirtConnection } from './connection.ts';
import { DOMAIN_VCPU } from './constants.ts';
import { toWire, type DomainRef } from './domain-ref.ts';
import type { DeviceScope } from './lifecycle.ts';
import { PROC } from './procedures.ts';

/** The flags of a vCPU call: the scope's LIVE/CONFIG, plus MAXIMUM when the ceiling is asked for. */
export function vcpuFlags(scope: DeviceScope, maximum = false): number {
  return (
    (scope.live === true ? DOMAIN_VCPU.LIVE : 0) |
    (scope.config === true ? DOMAIN_VCPU.CONFIG : 0) |
    (maximum ? DOMAIN_VCPU.MAXIMUM : 0)
  );
}

/** Sets how many vCPUs are online; live and config by default, as KubeVirt does. */
export async function setVcpus(
  conn: LibvirtConnection,
  dom: DomainRef,
  count: number,
  o: { scope?: DeviceScope } & CallOptions = {},
): Promise<void> {
  const flags = vcpuFlags(o.scope ?? { live: true, config: true });
  await conn.call(PROC.domainSetVcpusFlags, { dom: toWire(dom), nvcpus: count, flags }, o);
}

/**
 * The vCPU count of one scope (live only, config only: exactly one of them), or its maximum with maximum.
 */
export async function getVcpus(
  conn: LibvirtConnection,
  dom: DomainRef,
  o: { scope: DeviceScope; maximum?: boolean },
): Promise<number> {
  const flags = vcpuFlags(o.scope, o.maximum === true);
  return (await conn.call(PROC.domainGetVcpusFlags, { dom: toWire(dom), flags })).num;
}
