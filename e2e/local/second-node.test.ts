import { describe, expect, it } from '@jest/globals';
import { cniConflist } from './cni.ts';
import { kubeletArgs, kubeletConfig } from './kubelet-config.ts';
import { FIRST_NODE, layout, SECOND_NODE } from './layout.ts';
import { inNode, overlays, secondNodeLayout, setupScript, sharedInNode } from './second-node.ts';

const L = layout('/stack');
const RUN = '/run/kubevirt-ts-0000';

describe('the second node', () => {
  it('overmounts every path of its own at the host node’s path, in the stack and outside it', () => {
    expect(overlays(L, RUN)).toEqual([
      ['/stack/node2/stack/kubelet', '/stack/kubelet'],
      ['/stack/node2/stack/containerd', '/stack/containerd'],
      ['/stack/node2/stack/cni', '/stack/cni'],
      ['/stack/node2/stack/node-labeller', '/stack/node-labeller'],
      ['/stack/node2/stack/run-kubevirt', '/stack/run-kubevirt'],
      ['/stack/node2/stack/run', RUN],
      ['/stack/node2/host/var-lib-kubelet', '/var/lib/kubelet'],
      ['/stack/node2/host/var-lib-cni', '/var/lib/cni'],
      ['/stack/node2/host/run-containerd', '/run/containerd'],
    ]);
  });

  it('sets up its namespaces: detach the host’s mounts, then bind, then share the kubelet root', () => {
    const script = setupScript(L, RUN, 4242).split('\n');
    expect(script.slice(0, 3)).toEqual([
      'set -e',
      'ip link set lo up',
      'ip link add eth0 type veth peer name kvts0-n2 netns 4242',
    ]);
    expect(script).toContain(`ip addr add ${SECOND_NODE.ip}/24 dev eth0`);
    expect(script).toContain(`ip addr add ${SECOND_NODE.gateway}/24 dev kvts0`);
    // Forwarding is set by a process inside the namespace only (the script runs through nsenter).
    expect(script).toContain('sysctl -q -w net.ipv4.ip_forward=1');
    const detach = script.indexOf(
      "findmnt -rn -o TARGET | grep -E '^/stack/kubelet(/|$)' | sort -r | xargs -r -n1 umount -n -l",
    );
    const bind = script.indexOf('mount -n --bind /stack/node2/stack/kubelet /stack/kubelet');
    const share = script.indexOf('mount -n --make-shared /stack/kubelet/root');
    expect(detach).toBeGreaterThan(0);
    expect(bind).toBe(detach + 1);
    expect(share).toBeGreaterThan(bind);
    expect(sharedInNode(L)).toEqual([
      '/stack/kubelet/root',
      '/stack/containerd/state/io.containerd.grpc.v1.cri/image-volumes',
    ]);
    expect(inNode(secondNodeLayout(L))).toEqual([
      'nsenter',
      '--mount=/stack/node2/ns/mnt',
      '--net=/stack/node2/ns/net',
      '--',
    ]);
  });

  it('has a kubelet of its own name, address, healthz address and cgroup root', () => {
    const base = {
      caFile: 'ca',
      tlsCert: 'c',
      tlsKey: 'k',
      containerdSocket: '/s',
      podLogsDir: '/l',
      volumePluginDir: '/v',
      healthzPort: 1,
      port: 10250,
    };
    const cfg = kubeletConfig({ ...base, node: SECOND_NODE });
    expect(cfg).toContain('address: 10.247.0.2\n');
    expect(cfg).toContain('healthzBindAddress: 10.247.0.2\n');
    expect(cfg).toContain('cgroupRoot: /kvts-local-2\n');
    expect(kubeletArgs('c', 'k', 'r', SECOND_NODE)).toEqual(
      expect.arrayContaining(['--node-ip=10.247.0.2', '--hostname-override=local-2']),
    );
    // Node `local` keeps the default root (/kubepods) and its healthz on loopback.
    expect(kubeletConfig(base)).not.toContain('cgroupRoot');
    expect(kubeletConfig(base)).toContain('healthzBindAddress: 127.0.0.1\n');
  });

  it('routes each node’s Pods to the other node’s Pod range, and Service traffic to their own gateway', () => {
    const routes = (node: typeof FIRST_NODE): unknown =>
      (JSON.parse(cniConflist('/ipam', node)) as { plugins: { ipam?: { routes: unknown } }[] }).plugins[0]
        ?.ipam?.routes;
    expect(routes(FIRST_NODE)).toEqual([
      { dst: '10.96.0.0/16', gw: '10.247.0.1' },
      { dst: '10.247.1.0/24', gw: '10.247.0.2' },
    ]);
    expect(routes(SECOND_NODE)).toEqual([
      { dst: '10.96.0.0/16', gw: '10.247.1.1' },
      { dst: '10.247.0.0/24', gw: '10.247.1.1' },
    ]);
  });
});
