/** Watchdog: i6300esb on amd64, diag288 on s390x, none on arm64 (kubevirt arch ConvertWatchdog). */
import { configurator, type Configurator } from './configurator.ts';
import { userAlias } from './domain-spec.ts';
import { ConversionError } from './errors.ts';

export const watchdogConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  const watchdog = vmi.spec.domain.devices.watchdog;
  if (watchdog === undefined) return;
  const field = 'spec.domain.devices.watchdog';
  if (ctx.arch === 'arm64')
    throw new ConversionError(field, 'watchdog is not supported on architecture ARM64');
  const model = ctx.arch === 's390x' ? 'diag288' : 'i6300esb';
  const device = watchdog[model];
  if (device === undefined) {
    throw new ConversionError(
      field,
      `watchdog ${watchdog.name} can't be mapped, no ${model} watchdog specified`,
    );
  }
  domain.devices.watchdogs.push({ model, action: device.action ?? 'reset', alias: userAlias(watchdog.name) });
});
