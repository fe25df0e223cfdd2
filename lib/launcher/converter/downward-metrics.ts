/**
 * The downward metrics channel (kubevirt converter/downwardmetrics.go convertDownwardMetricsChannel): a
 * virtio-serial port named org.github.vhostmd.1 on a unix socket QEMU listens on, through which the node
 * answers the guest's vhostmd requests for host and VM metrics.
 */
import { configurator, type Configurator } from './configurator.ts';

const DOWNWARD_METRICS_CHANNEL = 'org.github.vhostmd.1';

export const downwardMetricsConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  if (vmi.spec.domain.devices.downwardMetrics === undefined) return;
  domain.devices.channels.push({
    type: 'unix',
    source: { mode: 'bind', path: ctx.layout.downwardMetricsSocket },
    target: { name: DOWNWARD_METRICS_CHANNEL, type: 'virtio' },
  });
});
