/**
 * Memory balloon: virtio with statistics every memBalloonStatsPeriod seconds and free page reporting, or model
 * none when autoattachMemBalloon is false (kubevirt ConvertV1ToAPIBalloning).
 */
import { configurator, virtioModel, type Configurator } from './configurator.ts';

export const balloonConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  if (vmi.spec.domain.devices.autoattachMemBalloon === false) {
    domain.devices.memBalloon = { model: 'none' };
    return;
  }
  domain.devices.memBalloon = {
    model: virtioModel(vmi, ctx),
    ...(ctx.memBalloonStatsPeriod > 0 && { statsPeriod: ctx.memBalloonStatsPeriod }),
    freePageReporting: ctx.freePageReporting ? 'on' : 'off',
  };
});
