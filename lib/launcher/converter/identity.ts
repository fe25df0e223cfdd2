/**
 * Who the domain is: `<namespace>_<name>`, the firmware UUID, kvm or qemu (TCG), and KubeVirt's metadata
 * element (VMI uid and grace period, which the launcher reads back from a running domain).
 */
import { terminationGracePeriodSeconds } from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';
import { ConversionError } from './errors.ts';

const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
/** Characters a uid may have to be used in a path (rpc/paths.ts accepts the same). */
const PATH_SAFE_UID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function required(value: string | undefined, field: string): string {
  if (value === undefined || value === '') throw new ConversionError(field, 'must be set');
  return value;
}

export const identityConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  const name = required(vmi.metadata.name, 'metadata.name');
  const namespace = required(vmi.metadata.namespace, 'metadata.namespace');
  const uid = required(vmi.metadata.uid, 'metadata.uid');
  if (!PATH_SAFE_UID.test(uid) || uid.includes('..')) {
    throw new ConversionError('metadata.uid', `${JSON.stringify(uid)} cannot be used in a socket path`);
  }
  domain.name = `${namespace}_${name}`;
  domain.type = ctx.emulation ? 'qemu' : 'kvm';
  const uuid = vmi.spec.domain.firmware?.uuid;
  if (uuid !== undefined && uuid !== '') {
    if (!UUID.test(uuid)) throw new ConversionError('spec.domain.firmware.uuid', `${uuid} is not a UUID`);
    domain.uuid = uuid;
  }
  domain.metadata = { uid, gracePeriodSeconds: terminationGracePeriodSeconds(vmi.spec) };
});
