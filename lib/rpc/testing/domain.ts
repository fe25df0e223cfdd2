/** A GetDomain answer for tests: domain `ns/v` (uid `u`) in a state, with no devices unless `change` adds some. */
import { DOMAIN_API_VERSION, EMPTY_GUEST_OS_INFO, type DomainJson, type LifeCycle } from '../domain-json.ts';

export function testDomain(
  status: LifeCycle,
  reason = 'Unknown',
  change: (d: DomainJson) => void = () => undefined,
): DomainJson {
  const d: DomainJson = {
    kind: 'Domain',
    apiVersion: DOMAIN_API_VERSION,
    ObjectMeta: { name: 'v', namespace: 'ns', uid: 'u', creationTimestamp: null },
    Spec: { Name: 'ns_v', Devices: {} },
    Status: {
      Status: status,
      Reason: reason,
      Interfaces: null,
      OSInfo: { ...EMPTY_GUEST_OS_INFO },
      FSFreezeStatus: { Status: '' },
      ServiceStatus: { VNCSessionConnected: 0 },
    },
  };
  change(d);
  return d;
}
