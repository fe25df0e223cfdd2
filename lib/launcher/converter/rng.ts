/** Random number generator: a virtio RNG fed from the host's /dev/urandom when the VMI asks for one. */
import { configurator, virtioModel, type Configurator } from './configurator.ts';

export const rngConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  if (vmi.spec.domain.devices.rng === undefined) return;
  domain.devices.rng = { model: virtioModel(vmi, ctx), backend: { model: 'random', source: '/dev/urandom' } };
});
