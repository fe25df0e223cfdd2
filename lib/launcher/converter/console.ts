/**
 * Serial console (unless autoattachSerialConsole is false): serial port 0 bound to the VMI's unix socket
 * (`<private>/<uid>/virt-serial0`), with a log file next to it unless switched off, plus a pty console on that
 * port. The virtio-serial controller comes from controllers.ts.
 */
import { configurator, type Configurator } from './configurator.ts';

export const consoleConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  const devices = vmi.spec.domain.devices;
  if (devices.autoattachSerialConsole === false) return;
  const uid = vmi.metadata.uid ?? '';
  const log = devices.logSerialConsole ?? ctx.serialConsoleLog;
  domain.devices.serials.push({
    port: 0,
    socket: ctx.layout.serialSocket(uid),
    ...(log && { logFile: ctx.layout.serialLog(uid) }),
  });
  domain.devices.consoles.push({ type: 'pty', targetType: 'serial', port: 0 });
});
