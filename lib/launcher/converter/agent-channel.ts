/**
 * The guest-agent channel: a virtio-serial port named org.qemu.guest_agent.0 on a unix socket whose path
 * libvirt picks (KubeVirt talks to the agent through libvirt, never through the socket).
 */
import { configurator, type Configurator } from './configurator.ts';

export const GUEST_AGENT_CHANNEL = 'org.qemu.guest_agent.0';

export const agentChannelConfigurator: Configurator = configurator((_vmi, domain) => {
  domain.devices.channels.push({ type: 'unix', target: { name: GUEST_AGENT_CHANNEL, type: 'virtio' } });
});
