/**
 * The guest-agent channel: a virtio-serial port named org.qemu.guest_agent.0 on a unix socket whose path
 * libvirt picks (KubeVirt talks to the agent through libvirt, never through the socket).
 */
import { AGENT_CHANNEL } from '../../rpc/index.ts';
import { configurator, type Configurator } from './configurator.ts';

const GUEST_AGENT_CHANNEL = AGENT_CHANNEL;

export const agentChannelConfigurator: Configurator = configurator((_vmi, domain) => {
  domain.devices.channels.push({ type: 'unix', target: { name: GUEST_AGENT_CHANNEL, type: 'virtio' } });
});
